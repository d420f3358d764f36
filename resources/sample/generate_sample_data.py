#!/usr/bin/env python3
"""Generates Headroom's bundled sample data: corpus.txt and greenhouse.csv.

Everything here is produced by this script from a fixed seed (no third-party text or data),
so the files are free to redistribute under the project's license. Run it again to recreate
them byte for byte: python3 generate_sample_data.py
"""
import csv
import math
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent

NAMES = ["Mira", "Tomas", "Lena", "Ravi", "Odile", "Kenji", "Ada", "Bruno", "Selma", "Yusuf"]
CREATURES = ["robot", "fox", "gardener", "baker", "sailor", "owl", "painter", "clockmaker"]
ADJECTIVES = ["small", "quiet", "curious", "tired", "brave", "clever", "old", "cheerful"]
PLACES = ["the garden", "the harbour", "the library", "the market", "the hill", "the workshop",
          "the station", "the orchard"]
OBJECTS = ["a red ball", "a brass key", "a paper map", "a warm loaf", "a blue kite",
           "a broken clock", "a jar of honey", "a letter"]
FEELINGS = ["happy", "worried", "surprised", "calm", "proud", "puzzled"]
TIMES = ["In the morning", "At noon", "Late in the evening", "One rainy day", "On Sunday",
         "Before sunrise"]
ACTIONS = ["found", "lost", "carried", "repaired", "shared", "hid", "painted", "counted"]
ENDINGS = ["Then everyone went home.", "The day ended with a song.",
           "It was a good day after all.", "Nobody forgot it for a long time.",
           "And the lamps came on, one by one."]


def sentence(rng, hero):
    pattern = rng.randrange(6)
    if pattern == 0:
        return f"{rng.choice(TIMES)}, {hero} {rng.choice(ACTIONS)} {rng.choice(OBJECTS)} in {rng.choice(PLACES)}."
    if pattern == 1:
        return f"The {rng.choice(ADJECTIVES)} {rng.choice(CREATURES)} felt {rng.choice(FEELINGS)}."
    if pattern == 2:
        return f"{hero} walked to {rng.choice(PLACES)} and met a {rng.choice(ADJECTIVES)} {rng.choice(CREATURES)}."
    if pattern == 3:
        count = rng.randrange(2, 10)
        return f"There were {count} birds on the roof, and {hero} counted them twice."
    if pattern == 4:
        return f"\"Have you seen {rng.choice(OBJECTS)}?\" asked {hero}."
    return f"{hero} was {rng.choice(FEELINGS)}, because the {rng.choice(CREATURES)} had {rng.choice(ACTIONS)} {rng.choice(OBJECTS)}."


def write_corpus(rng, path, stories=420):
    lines = []
    for number in range(1, stories + 1):
        hero = rng.choice(NAMES)
        lines.append(f"Story {number}: {hero} and the {rng.choice(ADJECTIVES)} {rng.choice(CREATURES)}")
        for _ in range(rng.randrange(3, 7)):
            lines.append(sentence(rng, hero))
        lines.append(rng.choice(ENDINGS))
        lines.append("")
    path.write_text("\n".join(lines), encoding="utf-8")


SOILS = ["loam", "clay", "sand", "peat"]
SPECIES = ["tomato", "basil", "pepper", "lettuce", "mint"]


def write_greenhouse(rng, path, rows=1200):
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["temperature_c", "humidity_pct", "light_hours", "water_ml", "soil",
                         "species", "growth_cm", "health"])
        for _ in range(rows):
            temperature = rng.gauss(22, 4)
            humidity = min(100, max(10, rng.gauss(60, 15)))
            light = min(16, max(2, rng.gauss(10, 3)))
            water = max(0, rng.gauss(250, 80))
            soil = rng.choice(SOILS)
            species = rng.choice(SPECIES)
            soil_bonus = {"loam": 1.0, "peat": 0.6, "clay": -0.4, "sand": -0.8}[soil]
            score = (-abs(temperature - 23) / 3 + (light - 9) / 2.5 - abs(water - 260) / 90
                     - abs(humidity - 62) / 25 + soil_bonus + rng.gauss(0, 0.6))
            growth = max(0.0, 6 + 2.2 * score + (3 if species == "tomato" else 0) + rng.gauss(0, 1))
            health = "good" if score > 0.2 else ("fair" if score > -1.6 else "poor")
            # A few missing cells, as real sheets have.
            water_cell = "" if rng.random() < 0.02 else f"{water:.0f}"
            writer.writerow([f"{temperature:.1f}", f"{humidity:.0f}", f"{light:.1f}", water_cell,
                             soil, species, f"{growth:.2f}", health])


def main():
    rng = random.Random(20261121)
    write_corpus(rng, HERE / "corpus.txt")
    write_greenhouse(rng, HERE / "greenhouse.csv")


if __name__ == "__main__":
    main()
