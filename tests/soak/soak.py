#!/usr/bin/env python3
"""Soak test: trains the sample GPT with random injected out-of-memory errors and random
SIGKILLs, resuming after each kill, then checks the project.

    python3 tests/soak/soak.py --kills 50 [--cli build/release/app/headroom-cli] [--seed 1]

Every attempt starts `headroom-cli train --json` (with --resume once a checkpoint exists) and
HEADROOM_FAILPOINT=oom@step:N for a random step N ahead of the resume point (30 % of attempts,
while the micro-batch, 64 at first, can still be halved),
and kills it with SIGKILL after a random delay: counted from its first output line in 85 % of
attempts, from its launch (start-up included) in the others. After each kill the project must open (`runs --json`), and the
metrics the killed run had committed are remembered. At the end the run is finished with a
last resume and the checks are:
  * every remembered committed metric row is still in the project, unchanged;
  * every killed run is marked interrupted, the last one finished;
  * the runs together cover every step, and every step consumed the samples
    (samples_digest) of an uninterrupted reference run;
  * every injected OOM that was reached was recovered (the process printed an oom_recovered
    event at that step before the step itself).
Prints the figures and exits non-zero when a check fails.
"""

import argparse
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SETTINGS = [
    "model.layers=2", "model.heads=2", "model.dim=32", "model.seq_len=32",
    "train.micro_batch=64", "train.checkpoint_every=5", "train.keep_checkpoints=3",
    "train.eval_every=25", "train.eval_batches=2", "train.threads=1",
]


def run_cli(cli, *arguments, env=None):
    return subprocess.run([cli, *arguments], capture_output=True, text=True, env=env)


def new_project(cli, path, steps):
    sets = [item for setting in SETTINGS + [f"train.steps={steps}"] for item in ("--set", setting)]
    result = run_cli(cli, "new", path, "--recipe", "gpt", "--data",
                     os.path.join(REPO, "resources", "sample", "corpus.txt"), *sets)
    if result.returncode != 0:
        sys.exit(f"cannot create {path}: {result.stderr}")


def read_only(path):
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True)


def committed_rows(path, run_id):
    with read_only(path) as db:
        return {step: (digest, loss) for step, digest, loss in db.execute(
            "SELECT step, samples_digest, loss FROM metrics WHERE run_id = ?", (run_id,))}


def latest_checkpoint_step(path):
    with read_only(path) as db:
        row = db.execute("SELECT max(step) FROM checkpoints").fetchone()
    return row[0] or 0


def latest_micro_batch(path):
    """The micro-batch of the newest committed step (a resumed run starts at least this high)."""
    with read_only(path) as db:
        row = db.execute("SELECT micro_batch FROM metrics ORDER BY run_id DESC, step DESC "
                         "LIMIT 1").fetchone()
    return row[0] if row else 64


def attempt(cli, path, resume, oom_step, kill_after, from_start, printed):
    """One training process, killed kill_after seconds after it began training (from_start) or
    after it was launched (None: let it finish)."""
    env = dict(os.environ, HEADROOM_FAILPOINT=f"oom@step:{oom_step}") if oom_step else None
    arguments = [cli, "train", path, "--json"] + (["--resume"] if resume else [])
    process = subprocess.Popen(arguments, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               text=True, env=env)

    training = threading.Event()

    def read():
        for line in process.stdout:
            try:
                printed.append(json.loads(line))
            except json.JSONDecodeError:
                continue
            if printed[-1].get("type") == "start":
                training.set()
        training.set()
    reader = threading.Thread(target=read)
    reader.start()
    try:
        if kill_after is not None and from_start:
            training.wait(timeout=600)
        process.wait(timeout=kill_after)
        killed = False
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGKILL)
        process.wait()
        killed = True
    reader.join()
    return killed, process.returncode


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kills", type=int, default=50)
    parser.add_argument("--steps", type=int, default=0, help="default: 4 per kill, at least 100")
    parser.add_argument("--cli", default=os.path.join(REPO, "build", "release", "app", "headroom-cli"))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-delay", type=float, default=3.0, help="seconds before a kill, at most")
    parser.add_argument("--keep", action="store_true", help="keep the scratch folder")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    steps = args.steps or max(100, 4 * args.kills)
    scratch = tempfile.mkdtemp(prefix="headroom-soak-")
    project = os.path.join(scratch, "soak.headroom")
    reference = os.path.join(scratch, "reference.headroom")
    started = time.time()

    new_project(args.cli, reference, steps)
    if run_cli(args.cli, "train", reference).returncode != 0:
        sys.exit("the reference run failed")
    expected = committed_rows(reference, 1)
    new_project(args.cli, project, steps)

    failures = []
    remembered = {}  # (run, step) -> (digest, loss) committed before a kill
    kills = 0
    injected = []  # steps whose OOM the process reached (it printed that step)
    recovered_ooms = 0  # of those, the ones it printed an oom_recovered event for
    attempts = 0
    finished = False
    while not finished:
        attempts += 1
        resume = latest_checkpoint_step(project) > 0
        start = latest_checkpoint_step(project)
        # Each recovery halves the micro-batch for good (the checkpoint keeps it); at 1 an OOM
        # pauses the run by design, so none is injected there.
        inject = rng.random() < 0.3 and latest_micro_batch(project) > 1
        oom_step = start + rng.randint(1, 8) if inject else 0
        delay = None if kills >= args.kills else rng.uniform(0.0, args.max_delay)
        from_start = rng.random() < 0.85  # else anywhere, start-up included
        printed = []
        killed, code = attempt(args.cli, project, resume, oom_step, delay, from_start, printed)
        step_lines = [line["step"] for line in printed if line.get("type") == "step"]
        if oom_step and oom_step in step_lines:
            injected.append(oom_step)
            if any(line.get("kind") == "oom_recovered" and line.get("step") == oom_step
                   for line in printed):
                recovered_ooms += 1
        if not killed:
            if code != 0:
                failures.append(f"attempt {attempts}: exit code {code} without a kill")
                break
            finished = True
            continue
        kills += 1
        listed = run_cli(args.cli, "runs", project, "--json")
        if listed.returncode != 0:
            failures.append(f"kill {kills}: the project does not open: {listed.stderr.strip()}")
            break
        runs = json.loads(listed.stdout)
        if runs:
            run_id = runs[-1]["id"]
            for step, row in committed_rows(project, run_id).items():
                remembered[(run_id, step)] = row

    with read_only(project) as db:
        runs = db.execute("SELECT id, status FROM runs ORDER BY id").fetchall()
        rows = {(run, step): (digest, loss) for run, step, digest, loss in db.execute(
            "SELECT run_id, step, samples_digest, loss FROM metrics")}
    lost = [key for key, row in remembered.items() if rows.get(key) != row]
    if lost:
        failures.append(f"{len(lost)} committed metric rows lost or changed, e.g. {lost[:3]}")
    for run_id, status in runs[:-1]:
        if status != "interrupted":
            failures.append(f"run {run_id} is {status}, expected interrupted")
    if runs and runs[-1][1] != "finished":
        failures.append(f"the last run is {runs[-1][1]}, expected finished")
    covered = {}
    for (run_id, step), (digest, _) in rows.items():
        if digest != expected[step][0]:
            failures.append(f"run {run_id} step {step}: digest {digest} != {expected[step][0]}")
        covered[step] = digest
    missing = sorted(set(range(1, steps + 1)) - set(covered))
    if missing:
        failures.append(f"steps never committed: {missing[:10]}")
    if recovered_ooms != len(injected):
        failures.append(f"{len(injected) - recovered_ooms} injected OOMs were not recovered")

    print(json.dumps({
        "kills": kills, "kills_survived": kills if not failures else None,
        "attempts": attempts, "runs": len(runs), "steps": steps,
        "committed_rows_checked": len(remembered), "committed_rows_lost": len(lost),
        "injected_ooms_reached": len(injected),
        "injected_ooms_recovered": recovered_ooms,
        "minutes": round((time.time() - started) / 60, 1), "failures": failures[:20],
        "scratch": scratch if args.keep else None,
    }, indent=1))
    if not args.keep:
        subprocess.run(["rm", "-rf", scratch])
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
