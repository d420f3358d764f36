<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de_DE">
<context>
    <name>BaseModelText</name>
    <message>
        <source>%1 billion parameters</source>
        <translation>%1 Milliarden Parameter</translation>
    </message>
    <message>
        <source>%1 million parameters</source>
        <translation>%1 Millionen Parameter</translation>
    </message>
    <message>
        <source>%1 parameters</source>
        <translation>%1 Parameter</translation>
    </message>
    <message>
        <source>Stored as %1, %2 on disk</source>
        <translation>Gespeichert als %1, %2 auf dem Datenträger</translation>
    </message>
    <message>
        <source> in %1 shards</source>
        <translation> in %1 Teildateien</translation>
    </message>
    <message>
        <source>%1 layers · width %2 · %3 attention heads (%4 for keys and values) · vocabulary %5</source>
        <translation>%1 Schichten · Breite %2 · %3 Attention-Köpfe (%4 für Keys und Values) · Vokabular %5</translation>
    </message>
    <message>
        <source>Context length: %1 tokens</source>
        <translation>Kontextlänge: %1 Token</translation>
    </message>
    <message>
        <source>Tokenizer: %1</source>
        <translation>Tokenizer: %1</translation>
    </message>
    <message>
        <source>Memory for the weights: %1 in fp32 · %2 in bf16</source>
        <translation>Speicher für die Gewichte: %1 in fp32 · %2 in bf16</translation>
    </message>
    <message>
        <source>A masked language model: it trains as a &lt;b&gt;SPLADE sparse retrieval encoder&lt;/b&gt; (queries and passages become weighted vocabulary terms; every weight is fine-tuned).</source>
        <translation>Ein maskiertes Sprachmodell: Es wird als &lt;b&gt;SPLADE-Encoder für dünnbesetzte Suche&lt;/b&gt; trainiert (Anfragen und Passagen werden zu gewichteten Vokabularbegriffen; alle Gewichte werden feinabgestimmt).</translation>
    </message>
    <message>
        <source>Mixture of Experts: %1 experts in every layer, each token routed to %2 of them (all experts are held in memory)</source>
        <translation>Mixture of Experts: %1 Experten in jeder Schicht, jedes Token wird an %2 davon geleitet (alle Experten liegen im Speicher)</translation>
    </message>
</context>
<context>
    <name>ConfigKeys</name>
    <message>
        <source>auto, cpu, cuda, cuda:N or mps</source>
        <translation>auto, cpu, cuda, cuda:N oder mps</translation>
    </message>
    <message>
        <source>Training data file (relative paths are relative to the project file)</source>
        <translation>Trainingsdatei (relative Pfade gelten relativ zur Projektdatei)</translation>
    </message>
    <message>
        <source>JSONL field or CSV column holding the text (gpt)</source>
        <translation>JSONL-Feld oder CSV-Spalte mit dem Text (gpt)</translation>
    </message>
    <message>
        <source>CSV target column (tabular); empty = last</source>
        <translation>CSV-Zielspalte (tabellarisch); leer = letzte</translation>
    </message>
    <message>
        <source>Tabular task; auto infers it from the target column</source>
        <translation>Tabellarische Aufgabe; auto leitet sie aus der Zielspalte ab</translation>
    </message>
    <message>
        <source>Examples held for shuffling</source>
        <translation>Beispiele, die zum Mischen vorgehalten werden</translation>
    </message>
    <message>
        <source>Records read from the file; 0 = all</source>
        <translation>Aus der Datei gelesene Datensätze; 0 = alle</translation>
    </message>
    <message>
        <source>Share of records kept for validation</source>
        <translation>Anteil der Datensätze, der für die Validierung zurückgehalten wird</translation>
    </message>
    <message>
        <source>Tokens between windows (gpt); 0 = seq_len</source>
        <translation>Token zwischen Fenstern (gpt); 0 = seq_len</translation>
    </message>
    <message>
        <source>SentencePiece vocabulary size</source>
        <translation>Vokabulargröße von SentencePiece</translation>
    </message>
    <message>
        <source>Target parameter count (gpt); 0 = use layers, heads and dim</source>
        <translation>Ziel-Parameterzahl (gpt); 0 = layers, heads und dim verwenden</translation>
    </message>
    <message>
        <source>Transformer blocks (gpt)</source>
        <translation>Transformer-Blöcke (gpt)</translation>
    </message>
    <message>
        <source>Attention heads (gpt)</source>
        <translation>Attention-Köpfe (gpt)</translation>
    </message>
    <message>
        <source>Embedding width (gpt)</source>
        <translation>Einbettungsbreite (gpt)</translation>
    </message>
    <message>
        <source>Context length in tokens (gpt)</source>
        <translation>Kontextlänge in Token (gpt)</translation>
    </message>
    <message>
        <source>Dropout probability</source>
        <translation>Dropout-Wahrscheinlichkeit</translation>
    </message>
    <message>
        <source>Hidden layer widths of the tabular MLP, comma-separated</source>
        <translation>Breiten der verborgenen Schichten des tabellarischen MLP, durch Kommas getrennt</translation>
    </message>
    <message>
        <source>Embedding width of categorical columns (tabular); 0 = automatic</source>
        <translation>Einbettungsbreite kategorialer Spalten (tabellarisch); 0 = automatisch</translation>
    </message>
    <message>
        <source>Hard memory cap such as 512MiB or 8GiB: CPU allocations beyond it fail, CUDA and MPS behave as a device of this size; none = no cap</source>
        <translation>Harte Speichergrenze wie 512MiB oder 8GiB: CPU-Anforderungen darüber schlagen fehl, CUDA und MPS verhalten sich wie ein Gerät dieser Größe; none = keine Grenze</translation>
    </message>
    <message>
        <source>Mixed precision: bf16 autocast (CPU; CUDA from compute capability 8.0), fp16 autocast with dynamic loss scaling (CUDA); weights stay fp32</source>
        <translation>Gemischte Genauigkeit: bf16-Autocast (CPU; CUDA ab Compute Capability 8.0), fp16-Autocast mit dynamischer Loss-Skalierung (CUDA); die Gewichte bleiben fp32</translation>
    </message>
    <message>
        <source>adamw keeps two fp32 moments (8 bytes per parameter); adamw8bit quantizes them block-wise (about 2 bytes per parameter)</source>
        <translation>adamw hält zwei fp32-Momente (8 Byte pro Parameter); adamw8bit quantisiert sie blockweise (etwa 2 Byte pro Parameter)</translation>
    </message>
    <message>
        <source>Keep optimizer state in pinned host memory and update there (CUDA only)</source>
        <translation>Optimiererzustand in gepinntem Hostspeicher halten und dort aktualisieren (nur CUDA)</translation>
    </message>
    <message>
        <source>Release cached device memory every N steps; 0 = never</source>
        <translation>Zwischengespeicherten Gerätespeicher alle N Schritte freigeben; 0 = nie</translation>
    </message>
    <message>
        <source>CUDA allocator expandable segments (LibTorch 2.1 or newer)</source>
        <translation>Expandable Segments des CUDA-Allokators (LibTorch 2.1 oder neuer)</translation>
    </message>
    <message>
        <source>CUDA allocator: blocks larger than this are never split (fights fragmentation); none = LibTorch&apos;s default</source>
        <translation>CUDA-Allokator: größere Blöcke werden nie geteilt (gegen Fragmentierung); none = Vorgabe von LibTorch</translation>
    </message>
    <message>
        <source>CUDA allocator: reclaim cached blocks above this share of the budget; 0 = off</source>
        <translation>CUDA-Allokator: zwischengespeicherte Blöcke oberhalb dieses Anteils am Budget zurückholen; 0 = aus</translation>
    </message>
    <message>
        <source>Out-of-memory recovery never halves the micro-batch below this</source>
        <translation>Die Out-of-Memory-Behandlung halbiert den Micro-Batch nie unter diesen Wert</translation>
    </message>
    <message>
        <source>Out-of-memory recoveries allowed per run before it pauses</source>
        <translation>Erlaubte Out-of-Memory-Behandlungen pro Lauf, bevor er pausiert</translation>
    </message>
    <message>
        <source>Examples per forward/backward pass</source>
        <translation>Beispiele pro Vorwärts-/Rückwärtsdurchlauf</translation>
    </message>
    <message>
        <source>Micro-batches per optimizer step (effective batch = micro_batch x accumulation)</source>
        <translation>Micro-Batches pro Optimiererschritt (effektiver Batch = micro_batch x accumulation)</translation>
    </message>
    <message>
        <source>Peak learning rate (AdamW)</source>
        <translation>Höchste Lernrate (AdamW)</translation>
    </message>
    <message>
        <source>Final learning rate as a share of train.lr</source>
        <translation>Letzte Lernrate als Anteil von train.lr</translation>
    </message>
    <message>
        <source>Linear warm-up steps before cosine decay</source>
        <translation>Schritte des linearen Aufwärmens vor dem Kosinus-Abfall</translation>
    </message>
    <message>
        <source>AdamW weight decay</source>
        <translation>AdamW-Gewichtsverfall</translation>
    </message>
    <message>
        <source>Clip the gradient norm to this; 0 = off</source>
        <translation>Gradientennorm auf diesen Wert begrenzen; 0 = aus</translation>
    </message>
    <message>
        <source>Seed of initialization, dropout and shuffling</source>
        <translation>Startwert für Initialisierung, Dropout und Mischen</translation>
    </message>
    <message>
        <source>Steps between checkpoints; 0 = only at the end</source>
        <translation>Schritte zwischen Checkpoints; 0 = nur am Ende</translation>
    </message>
    <message>
        <source>Checkpoints kept per run; older ones are deleted</source>
        <translation>Pro Lauf behaltene Checkpoints; ältere werden gelöscht</translation>
    </message>
    <message>
        <source>Steps between validation passes; 0 = only at the end</source>
        <translation>Schritte zwischen Validierungen; 0 = nur am Ende</translation>
    </message>
    <message>
        <source>CPU threads for LibTorch; 0 = all cores</source>
        <translation>CPU-Threads für LibTorch; 0 = alle Kerne</translation>
    </message>
    <message>
        <source>LoRA scaling numerator: updates scale by alpha/rank</source>
        <translation>LoRA-Skalierungszähler: Aktualisierungen werden mit alpha/rank skaliert</translation>
    </message>
    <message>
        <source>Dropout on the input of the LoRA adapters</source>
        <translation>Dropout am Eingang der LoRA-Adapter</translation>
    </message>
    <message>
        <source>Activation checkpointing (gpt): 0 = off, 1 = every block, k = every k-th block (true/on = 1, false/off = 0); recomputes activations in backward to save memory</source>
        <translation>Aktivierungs-Checkpointing (gpt): 0 = aus, 1 = jeder Block, k = jeder k-te Block (true/on = 1, false/off = 0); berechnet Aktivierungen im Rückwärtsdurchlauf neu, um Speicher zu sparen</translation>
    </message>
    <message>
        <source>Optimizer steps of the run (derived from train.epochs when that is set)</source>
        <translation>Optimiererschritte des Laufs (aus train.epochs abgeleitet, wenn das gesetzt ist)</translation>
    </message>
    <message>
        <source>Passes over the training split (tabular); above 0 the run&apos;s steps follow from it: epochs x training rows / effective batch. 0 = use train.steps</source>
        <translation>Durchläufe über den Trainingsanteil (tabular); über 0 ergeben sich die Schritte des Laufs daraus: Epochen x Trainingszeilen / effektiver Batch. 0 = train.steps verwenden</translation>
    </message>
    <message>
        <source>Stop after this many validation passes without a lower validation loss and make the best checkpoint the run&apos;s result; 0 = off (true/on = 10)</source>
        <translation>Nach so vielen Validierungsdurchläufen ohne niedrigeren Validierungsverlust anhalten und den besten Checkpoint zum Ergebnis des Laufs machen; 0 = aus (true/on = 10)</translation>
    </message>
    <message>
        <source>Loss weights per class (tabular classification): balanced = inverse class frequency; auto = square root of that when the largest class has 4 or more times the rows of the smallest, else none</source>
        <translation>Verlustgewichte je Klasse (tabulare Klassifikation): balanced = umgekehrte Klassenhäufigkeit; auto = deren Quadratwurzel, wenn die größte Klasse mindestens 4-mal so viele Zeilen hat wie die kleinste, sonst keine</translation>
    </message>
    <message>
        <source>Micro-batches per validation pass; 0 = the whole validation split</source>
        <translation>Mikro-Batches je Validierungsdurchlauf; 0 = der ganze Validierungsanteil</translation>
    </message>
    <message>
        <source>byte needs no training; bpe/unigram train SentencePiece on the corpus; base uses the tokenizer of model.base</source>
        <translation>byte braucht kein Training; bpe/unigram trainieren SentencePiece auf dem Korpus; base verwendet den Tokenizer von model.base</translation>
    </message>
    <message>
        <source>Hugging Face model folder to fine-tune (gpt); empty = a new model from scratch</source>
        <translation>Hugging-Face-Modellordner zum Feintunen (gpt); leer = ein neues Modell von Grund auf</translation>
    </message>
    <message>
        <source>Rank of the LoRA adapters; 0 = off (train every weight). Needs model.base or lora.base_run</source>
        <translation>Rang der LoRA-Adapter; 0 = aus (alle Gewichte trainieren). Braucht model.base oder lora.base_run</translation>
    </message>
    <message>
        <source>Projections that get adapters, comma-separated: qkv, attn_out, mlp_in, mlp_out, experts_in, experts_out (the experts of MoE blocks); for model.base also the folder&apos;s names (q_proj, v_proj, c_attn, ...) or all-linear</source>
        <translation>Projektionen mit Adaptern, kommagetrennt: qkv, attn_out, mlp_in, mlp_out, experts_in, experts_out (die Experten der MoE-Blöcke); bei model.base auch die Namen des Ordners (q_proj, v_proj, c_attn, ...) oder all-linear</translation>
    </message>
    <message>
        <source>Run whose latest checkpoint is the frozen base (lora.rank &gt; 0 without model.base)</source>
        <translation>Lauf, dessen letzter Checkpoint die eingefrorene Basis ist (lora.rank &gt; 0 ohne model.base)</translation>
    </message>
    <message>
        <source>Experts per Mixture-of-Experts block (gpt); 0 = dense blocks</source>
        <translation>Experten pro Mixture-of-Experts-Block (gpt); 0 = dichte Blöcke</translation>
    </message>
    <message>
        <source>Experts each token is routed to (1 to moe.experts)</source>
        <translation>Experten, an die jedes Token geleitet wird (1 bis moe.experts)</translation>
    </message>
    <message>
        <source>Tokens an expert takes per sequence: capacity_factor x tokens x top_k / experts; routings beyond it are dropped (the residual carries the token); 0 = no limit</source>
        <translation>Tokens, die ein Experte pro Sequenz aufnimmt: capacity_factor x Tokens x top_k / experts; Zuweisungen darüber hinaus werden verworfen (der Residualpfad trägt das Token); 0 = keine Grenze</translation>
    </message>
    <message>
        <source>Every k-th block is an MoE block (blocks k, 2k, ... counting from 1); 1 = all</source>
        <translation>Jeder k-te Block ist ein MoE-Block (Blöcke k, 2k, ... ab 1 gezählt); 1 = alle</translation>
    </message>
    <message>
        <source>Hidden width of each expert MLP; 0 = 4 x model.dim</source>
        <translation>Verborgene Breite jedes Experten-MLP; 0 = 4 x model.dim</translation>
    </message>
    <message>
        <source>Weight of the load-balancing loss (Switch/GShard form, which is 1 for perfectly balanced routing)</source>
        <translation>Gewicht des Lastausgleichsverlusts (Switch/GShard-Form, bei perfekt ausgeglichenem Routing gleich 1)</translation>
    </message>
    <message>
        <source>Weight of the router z-loss (ST-MoE: mean squared logsumexp of the router logits)</source>
        <translation>Gewicht des Router-z-Verlusts (ST-MoE: Mittelwert des quadrierten logsumexp der Router-Logits)</translation>
    </message>
    <message>
        <source>Router input noise in training: the input is multiplied by uniform noise in [1 - j, 1 + j]; 0 = off</source>
        <translation>Rauschen auf der Router-Eingabe im Training: die Eingabe wird mit gleichverteiltem Rauschen in [1 - j, 1 + j] multipliziert; 0 = aus</translation>
    </message>
    <message>
        <source>Tokens of a sample continuation written at each validation (gpt); 0 = off</source>
        <translation>Token einer Beispielfortsetzung, die bei jeder Validierung geschrieben wird (gpt); 0 = aus</translation>
    </message>
    <message>
        <source>How the frozen base of a LoRA run (model.base) holds its attention and MLP weights: fp32, bf16/fp16 (2 bytes), int8 (per-row absmax, ~1 byte) or nf4 (4-bit NormalFloat with double-quantized scales, ~0.52 bytes); embeddings, norms and the output head stay fp32</source>
        <translation>Wie die eingefrorene Basis eines LoRA-Laufs (model.base) ihre Attention- und MLP-Gewichte hält: fp32, bf16/fp16 (2 Byte), int8 (Absmax je Zeile, ~1 Byte) oder nf4 (4-Bit-NormalFloat mit doppelt quantisierten Skalen, ~0,52 Byte); Embeddings, Normen und der Ausgabekopf bleiben fp32</translation>
    </message>
    <message>
        <source>What out-of-memory recovery may switch on, in order, once the micro-batch is 1: checkpointing, bf16, adamw8bit, int8 and nf4 (the frozen base of a LoRA run on model.base), offload; none = nothing</source>
        <translation>Was die Out-of-Memory-Behandlung der Reihe nach einschalten darf, sobald der Micro-Batch 1 ist: checkpointing, bf16, adamw8bit, int8 und nf4 (die eingefrorene Basis eines LoRA-Laufs auf model.base), offload; none = nichts</translation>
    </message>
    <message>
        <source>What to train: a GPT language model from scratch, a tabular MLP, a SPLADE sparse retrieval encoder (on a BERT-family model.base) or a pretrained causal language model (causal_lm, on model.base; projects before it say gpt)</source>
        <translation>Was trainiert wird: ein GPT-Sprachmodell von Grund auf, ein tabellarisches MLP, ein SPLADE-Encoder für dünnbesetzte Suche (auf einem model.base der BERT-Familie) oder ein vortrainiertes kausales Sprachmodell (causal_lm, auf model.base; ältere Projekte sagen gpt)</translation>
    </message>
    <message>
        <source>Distributed runs (RANK/WORLD_SIZE set, or train --nproc): seconds a rank waits for the others at the rendezvous and each gradient exchange before it stops with a message naming the missing rank</source>
        <translation>Verteilte Läufe (RANK/WORLD_SIZE gesetzt oder train --nproc): Sekunden, die ein Rang beim Rendezvous und bei jedem Gradientenaustausch auf die anderen wartet, bevor er mit einer Meldung anhält, die den fehlenden Rang nennt</translation>
    </message>
    <message>
        <source>Weight of the FLOPS regularizer on the queries (sparser queries as it grows)</source>
        <translation>Gewicht des FLOPS-Regularisierers auf den Anfragen (je größer, desto dünnbesetzter die Anfragen)</translation>
    </message>
    <message>
        <source>Weight of the FLOPS regularizer on the passages</source>
        <translation>Gewicht des FLOPS-Regularisierers auf den Passagen</translation>
    </message>
    <message>
        <source>Steps over which the FLOPS weights grow quadratically to their values; 0 = full weights from the start</source>
        <translation>Schritte, über die die FLOPS-Gewichte quadratisch auf ihre Werte wachsen; 0 = volle Gewichte von Anfang an</translation>
    </message>
    <message>
        <source>Hard negatives per query in training, taken in turn from each record&apos;s &quot;negatives&quot; (every other passage of the batch is a negative too)</source>
        <translation>Harte Negative pro Anfrage im Training, reihum aus den &quot;negatives&quot; jedes Datensatzes genommen (jede andere Passage des Batches ist ebenfalls ein Negativ)</translation>
    </message>
    <message>
        <source>kto: the weight of the loss of records labelled desirable (true)</source>
        <translation>kto: das Gewicht des Verlusts der als erwünscht (true) beschrifteten Datensätze</translation>
    </message>
    <message>
        <source>kto: the weight of the loss of records labelled undesirable (false)</source>
        <translation>kto: das Gewicht des Verlusts der als unerwünscht (false) beschrifteten Datensätze</translation>
    </message>
    <message>
        <source>Preference objectives: beta, how far the policy may move from the reference (dpo, ipo) or the reward scale (simpo)</source>
        <translation>Präferenzziele: beta, wie weit sich die Policy vom Referenzmodell entfernen darf (dpo, ipo), bzw. die Skala der Belohnung (simpo)</translation>
    </message>
    <message>
        <source>dpo and simpo: the share of pairs assumed mislabelled (conservative DPO); 0 = none</source>
        <translation>dpo und simpo: der Anteil der Paare, die als falsch beschriftet angenommen werden (konservatives DPO); 0 = keiner</translation>
    </message>
    <message>
        <source>simpo: the target reward margin gamma</source>
        <translation>simpo: der angestrebte Belohnungsabstand gamma</translation>
    </message>
    <message>
        <source>orpo: the weight of the odds-ratio term beside the next-token loss of the chosen sequence (its prompt and completion, as TRL)</source>
        <translation>orpo: das Gewicht des Odds-Ratio-Terms neben dem Next-Token-Verlust der bevorzugten Sequenz (Prompt und Antwort, wie TRL)</translation>
    </message>
    <message>
        <source>dpo and ipo: one no-grad pass over the data before training computes the reference log-probabilities and stores them in the project (reused while the data, base and settings stay the same), so training runs no reference model: faster steps, and without LoRA no frozen copy in memory</source>
        <translation>dpo und ipo: ein Durchlauf ohne Gradienten vor dem Training berechnet die Log-Wahrscheinlichkeiten des Referenzmodells und speichert sie im Projekt (wiederverwendet, solange Daten, Basis und Einstellungen gleich bleiben), sodass das Training kein Referenzmodell rechnet: schnellere Schritte und ohne LoRA keine eingefrorene Kopie im Speicher</translation>
    </message>
    <message>
        <source>dpo and ipo without LoRA: how the frozen reference copy of the base holds its attention and MLP weights (int8/nf4 save memory at a small error in the reference log-probabilities)</source>
        <translation>dpo und ipo ohne LoRA: wie die eingefrorene Referenzkopie der Basis ihre Attention- und MLP-Gewichte hält (int8/nf4 sparen Speicher bei einem kleinen Fehler in den Referenz-Log-Wahrscheinlichkeiten)</translation>
    </message>
    <message>
        <source>Distributed runs: each rank keeps the optimizer state (AdamW moments, 8-bit states, offloaded master copies) of about 1/ranks of the parameters and broadcasts its updated parameters after each step (ZeRO stage 1); checkpoints hold the whole state</source>
        <translation>Verteilte Läufe: Jeder Rang hält den Optimiererzustand (AdamW-Momente, 8-Bit-Zustände, ausgelagerte Masterkopien) von etwa 1/Ränge der Parameter und sendet seine aktualisierten Parameter nach jedem Schritt an die anderen (ZeRO Stufe 1); Checkpoints enthalten den ganzen Zustand</translation>
    </message>
    <message>
        <source>Ranks the estimate and the plan assume for a sharded optimizer state; a distributed run sets it to its WORLD_SIZE</source>
        <translation>Ränge, die Schätzung und Plan für einen geteilten Optimiererzustand annehmen; ein verteilter Lauf setzt den Wert auf seine WORLD_SIZE</translation>
    </message>
    <message>
        <source>When a GPU (mps, cuda) runs out of memory even at the smallest micro-batch and after every recovery.ladder rung: cpu = move the run to the CPU and go on with the same samples (slower); off = keep the device and pause with a diagnosis</source>
        <translation>Wenn einer GPU (mps, cuda) selbst beim kleinsten Mikro-Batch und nach jeder Stufe von recovery.ladder der Speicher ausgeht: cpu = den Lauf auf die CPU verlegen und mit denselben Beispielen weitermachen (langsamer); off = auf dem Gerät bleiben und mit einer Diagnose pausieren</translation>
    </message>
    <message>
        <source>Distributed runs: send the gradients in buckets while the backward of each step&apos;s last micro-batch still runs (as PyTorch DDP does); 0 = after the whole backward. Both give the same update</source>
        <translation>Verteilte Läufe: die Gradienten in Buckets senden, während der Rückwärtsdurchlauf des letzten Mikro-Batches eines Schritts noch läuft (wie PyTorch DDP); 0 = nach dem ganzen Rückwärtsdurchlauf. Beides ergibt dasselbe Update</translation>
    </message>
    <message>
        <source>Distributed runs: KiB of gradients per bucket of the overlapped exchange (distributed.overlap); a larger parameter has a bucket of its own</source>
        <translation>Verteilte Läufe: KiB Gradienten pro Bucket des überlappten Austauschs (distributed.overlap); ein größerer Parameter bekommt einen eigenen Bucket</translation>
    </message>
    <message>
        <source>Distributed runs: how ranks exchange gradients. gloo = through host memory (CPU, or any device); nccl = on the GPUs (device=cuda; each rank takes cuda:LOCAL_RANK; needs a LibTorch built with NCCL); auto = nccl on CUDA when this build has it, else gloo</source>
        <translation>Verteilte Läufe: wie die Ränge Gradienten austauschen. gloo = über den Hauptspeicher (CPU oder jedes Gerät); nccl = auf den GPUs (device=cuda; jeder Rang nimmt cuda:LOCAL_RANK; braucht ein mit NCCL gebautes LibTorch); auto = nccl auf CUDA, wenn dieser Build es hat, sonst gloo</translation>
    </message>
    <message>
        <source>How a GPT made from scratch attends: auto = on the CPU the explicit form while its T x T weights are cheap (seq_len &lt;= 16 x head size and, under memory.budget, all layers&apos; weights within a quarter of it), otherwise the fused kernel; on a GPU the fused kernel; sdpa = LibTorch 2.x&apos;s scaled_dot_product_attention (keeps no T x T weights, slower on the CPU; needs model.dropout=0); explicit = scores and softmax weights as tensors (what LibTorch 1.13 always runs)</source>
        <translation>Wie ein von Grund auf erstelltes GPT Attention berechnet: auto = auf der CPU die explizite Form, solange ihre T x T-Gewichte billig sind (seq_len &lt;= 16 x Kopfgröße und, unter memory.budget, die Gewichte aller Schichten höchstens ein Viertel davon), sonst der fusionierte Kernel; auf einer GPU der fusionierte Kernel; sdpa = scaled_dot_product_attention von LibTorch 2.x (hält keine T x T-Gewichte, auf der CPU langsamer; erfordert model.dropout=0); explicit = Scores und Softmax-Gewichte als Tensoren (was LibTorch 1.13 immer ausführt)</translation>
    </message>
    <message>
        <source>Data format; auto goes by the file extension (JSONL whose first record has &quot;messages&quot; or &quot;conversations&quot; is chat); chat = conversations in JSONL or JSON, rendered with the chat template</source>
        <translation>Datenformat; auto richtet sich nach der Dateiendung (JSONL, dessen erster Datensatz &quot;messages&quot; oder &quot;conversations&quot; enthält, ist Chat); chat = Unterhaltungen in JSONL oder JSON, mit der Chat-Vorlage gerendert</translation>
    </message>
    <message>
        <source>Chat data: the template conversations are rendered with; empty = the one of model.base, chatml = the built-in ChatML template, else a file (.jinja, or a tokenizer_config.json / chat_template.json holding one)</source>
        <translation>Chat-Daten: die Vorlage, mit der Unterhaltungen gerendert werden; leer = die von model.base, chatml = die eingebaute ChatML-Vorlage, sonst eine Datei (.jinja oder eine tokenizer_config.json / chat_template.json, die eine enthält)</translation>
    </message>
    <message>
        <source>Chat data: the tokens learned; assistant = every assistant reply with its end-of-turn, last_assistant = the final reply only, all = the whole text</source>
        <translation>Chat-Daten: die gelernten Tokens; assistant = jede Antwort des Assistenten mit ihrem Zugende, last_assistant = nur die letzte Antwort, all = der ganze Text</translation>
    </message>
    <message>
        <source>Language models: place whole records (text, prompt/completion, conversations) side by side in windows of model.seq_len, best fit over the next 64, each attending only to itself with positions from 0; 0 = one padded window per prompt/completion or conversation, plain text as one stream</source>
        <translation>Sprachmodelle: ganze Datensätze (Text, Prompt/Completion, Gespräche) nebeneinander in Fenster von model.seq_len legen, bestmöglich passend unter den nächsten 64, jeder achtet nur auf sich selbst, Positionen ab 0; 0 = ein aufgefülltes Fenster je Prompt/Completion oder Gespräch, reiner Text als ein Strom</translation>
    </message>
    <message>
        <source>Preference pairs and grpo prompts: the most prompt tokens kept (the prompt&apos;s end, as TRL keeps it); 0 = no limit (a pair is cut at model.seq_len + 1 tokens, a prompt at model.seq_len, either way)</source>
        <translation>Präferenzpaare und GRPO-Prompts: höchstens so viele Prompt-Tokens (das Ende des Prompts, wie TRL); 0 = keine Grenze (ein Paar wird ohnehin bei model.seq_len + 1 Tokens gekürzt, ein Prompt bei model.seq_len)</translation>
    </message>
    <message>
        <source>What the run optimizes: sft = next-token loss on the data; dpo, ipo, simpo, orpo = preference tuning on &quot;prompt&quot;/&quot;chosen&quot;/&quot;rejected&quot; pairs (model.base; dpo and ipo against a frozen reference: the base with the LoRA adapters off, or a frozen copy without LoRA); kto = unpaired &quot;prompt&quot;/&quot;completion&quot;/&quot;label&quot; records against the reference; grpo = online RL on &quot;prompt&quot; records: completions sampled in groups, scored by grpo.reward. Dropout is off for them, as in TRL</source>
        <translation>Was der Lauf optimiert: sft = Next-Token-Verlust auf den Daten; dpo, ipo, simpo, orpo = Präferenz-Tuning auf Paaren aus &quot;prompt&quot;/&quot;chosen&quot;/&quot;rejected&quot; (model.base; dpo und ipo gegen eine eingefrorene Referenz: das Basismodell mit abgeschalteten LoRA-Adaptern oder ohne LoRA eine eingefrorene Kopie); kto = ungepaarte Datensätze &quot;prompt&quot;/&quot;completion&quot;/&quot;label&quot; gegen die Referenz; grpo = Online-RL auf &quot;prompt&quot;-Datensätzen: Vervollständigungen in Gruppen gezogen, bewertet durch grpo.reward. Dropout ist dabei aus, wie in TRL</translation>
    </message>
    <message>
        <source>grpo: the rewards, comma-separated, each KIND:ARGUMENT*WEIGHT: regex:PATTERN (1 when found), format:PATTERN (1 when the whole completion matches), exact:FIELD (the final answer equals the record&apos;s FIELD), length:N (1 at N tokens, less further away), command:CMD (a program reading JSONL on stdin, printing one reward per line); e.g. exact:answer,format:&lt;think&gt;.*&lt;/think&gt;*0.2</source>
        <translation>grpo: die Belohnungen, durch Kommas getrennt, jede ART:ARGUMENT*GEWICHT: regex:MUSTER (1, wenn gefunden), format:MUSTER (1, wenn die ganze Vervollständigung passt), exact:FELD (die Endantwort gleicht dem FELD des Datensatzes), length:N (1 bei N Tokens, weniger weiter weg), command:CMD (ein Programm, das JSONL auf stdin liest und je Zeile eine Belohnung ausgibt); z. B. exact:answer,format:&lt;think&gt;.*&lt;/think&gt;*0.2</translation>
    </message>
    <message>
        <source>grpo, exact: rewards: where the final answer is in a completion (a regular expression; its last match, the first group when it has groups)</source>
        <translation>grpo, exact:-Belohnungen: wo die Endantwort in einer Vervollständigung steht (ein regulärer Ausdruck; sein letzter Treffer, die erste Gruppe, wenn er Gruppen hat)</translation>
    </message>
    <message>
        <source>grpo, command: rewards: seconds the program may take for one step&apos;s completions before the run pauses</source>
        <translation>grpo, command:-Belohnungen: Sekunden, die das Programm für die Vervollständigungen eines Schritts brauchen darf, bevor der Lauf pausiert</translation>
    </message>
    <message>
        <source>grpo: completions sampled per prompt, whose rewards are compared with each other (train.micro_batch x train.accumulation must be a multiple)</source>
        <translation>grpo: je Prompt gezogene Vervollständigungen, deren Belohnungen miteinander verglichen werden (train.micro_batch x train.accumulation muss ein Vielfaches sein)</translation>
    </message>
    <message>
        <source>grpo: the longest completion, in tokens (model.seq_len bounds prompt and completion together)</source>
        <translation>grpo: die längste Vervollständigung in Tokens (model.seq_len begrenzt Prompt und Vervollständigung zusammen)</translation>
    </message>
    <message>
        <source>grpo: sampling temperature of the completions</source>
        <translation>grpo: Sampling-Temperatur der Vervollständigungen</translation>
    </message>
    <message>
        <source>grpo: nucleus sampling, the smallest set of tokens holding this probability; 1 = off</source>
        <translation>grpo: Nucleus-Sampling, die kleinste Menge von Tokens mit dieser Wahrscheinlichkeit; 1 = aus</translation>
    </message>
    <message>
        <source>grpo: sample among the k most likely tokens only; 0 = off</source>
        <translation>grpo: nur unter den k wahrscheinlichsten Tokens ziehen; 0 = aus</translation>
    </message>
    <message>
        <source>grpo: weight of the KL penalty to the reference (the base with the LoRA adapters off, or a frozen copy); 0 = no reference model, as TRL&apos;s default</source>
        <translation>grpo: Gewicht der KL-Strafe zur Referenz (das Basismodell mit abgeschalteten LoRA-Adaptern oder eine eingefrorene Kopie); 0 = kein Referenzmodell, wie TRLs Voreinstellung</translation>
    </message>
    <message>
        <source>grpo: the policy ratio is clipped to [1 - epsilon, 1 + epsilon_high]</source>
        <translation>grpo: das Verhältnis der Policy wird auf [1 - epsilon, 1 + epsilon_high] beschnitten</translation>
    </message>
    <message>
        <source>grpo: the upper clipping bound (DAPO suggests 0.28); 0 = grpo.epsilon</source>
        <translation>grpo: die obere Beschneidungsgrenze (DAPO empfiehlt 0.28); 0 = grpo.epsilon</translation>
    </message>
    <message>
        <source>grpo: how token losses are averaged: dapo = over the step&apos;s completion tokens, grpo = per completion then over completions, dr_grpo = over completions x grpo.max_new_tokens, bnpo = over each micro-batch&apos;s completion tokens</source>
        <translation>grpo: wie Token-Verluste gemittelt werden: dapo = über die Vervollständigungs-Tokens des Schritts, grpo = je Vervollständigung, dann über die Vervollständigungen, dr_grpo = über Vervollständigungen x grpo.max_new_tokens, bnpo = über die Vervollständigungs-Tokens jedes Micro-Batches</translation>
    </message>
    <message>
        <source>grpo: advantages are the rewards minus their group&apos;s mean, divided by the group&apos;s standard deviation (group), the step&apos;s (batch), or not (none)</source>
        <translation>grpo: Vorteile sind die Belohnungen minus dem Mittel ihrer Gruppe, geteilt durch die Standardabweichung der Gruppe (group), des Schritts (batch) oder gar nicht (none)</translation>
    </message>
    <message>
        <source>grpo: completions with their rewards written to the log at each validation</source>
        <translation>grpo: Vervollständigungen mit ihren Belohnungen, die bei jeder Validierung ins Protokoll geschrieben werden</translation>
    </message>
</context>
<context>
    <name>DisplayText</name>
    <message>
        <source>CUDA · %1 · %2</source>
        <translation>CUDA · %1 · %2</translation>
    </message>
    <message>
        <source>MPS · %1 unified</source>
        <translation>MPS · %1 gemeinsamer Speicher</translation>
    </message>
    <message numerus="yes">
        <source>CPU · %n cores · %1</source>
        <translation>
            <numerusform>CPU · %n Kern · %1</numerusform>
            <numerusform>CPU · %n Kerne · %1</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>CPU: %1 · %n cores (LibTorch uses %2) · %3 RAM, %4 available</source>
        <translation>
            <numerusform>CPU: %1 · %n Kern (LibTorch nutzt %2) · %3 RAM, %4 verfügbar</numerusform>
            <numerusform>CPU: %1 · %n Kerne (LibTorch nutzt %2) · %3 RAM, %4 verfügbar</numerusform>
        </translation>
    </message>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>CUDA: not in this LibTorch build (CPU only)</source>
        <translation>CUDA: in diesem LibTorch-Build nicht enthalten (nur CPU)</translation>
    </message>
    <message>
        <source>CUDA: built in, but no CUDA device is visible</source>
        <translation>CUDA: enthalten, aber kein CUDA-Gerät sichtbar</translation>
    </message>
    <message>
        <source>CUDA %1: %2 · %3, %4 free · compute capability %5.%6</source>
        <translation>CUDA %1: %2 · %3, %4 frei · Compute Capability %5.%6</translation>
    </message>
    <message>
        <source> · bf16</source>
        <translation> · bf16</translation>
    </message>
    <message>
        <source>MPS: Apple GPU · %1 unified memory</source>
        <translation>MPS: Apple-GPU · %1 gemeinsamer Speicher</translation>
    </message>
    <message>
        <source>MPS: built in, but not available on this machine</source>
        <translation>MPS: enthalten, aber auf diesem Rechner nicht verfügbar</translation>
    </message>
    <message>
        <source>MPS: not in this LibTorch build</source>
        <translation>MPS: in diesem LibTorch-Build nicht enthalten</translation>
    </message>
    <message>
        <source>LibTorch %1 · automatic device: %2</source>
        <translation>LibTorch %1 · automatisches Gerät: %2</translation>
    </message>
    <message>
        <source>%1 of %2 (%3 %)</source>
        <translation>%1 von %2 (%3 %)</translation>
    </message>
    <message>
        <source>No budget: the peak is %1.</source>
        <translation>Kein Budget: die Spitze liegt bei %1.</translation>
    </message>
    <message>
        <source>&lt;b&gt;Won&apos;t fit&lt;/b&gt;: %1.</source>
        <translation>&lt;b&gt;Passt nicht&lt;/b&gt;: %1.</translation>
    </message>
    <message>
        <source>&lt;b&gt;Tight&lt;/b&gt;: %1; less than 10 % stays free.</source>
        <translation>&lt;b&gt;Knapp&lt;/b&gt;: %1; weniger als 10 % bleiben frei.</translation>
    </message>
    <message>
        <source>&lt;b&gt;Fits&lt;/b&gt;: %1.</source>
        <translation>&lt;b&gt;Passt&lt;/b&gt;: %1.</translation>
    </message>
    <message>
        <source>%1 GB</source>
        <translation>%1 GB</translation>
    </message>
    <message>
        <source>This machine · %1 · %2</source>
        <translation>Dieser Rechner · %1 · %2</translation>
    </message>
    <message>
        <source>CUDA GPU · %1 (%2 class)</source>
        <translation>CUDA-GPU · %1 (%2-Klasse)</translation>
    </message>
    <message>
        <source>This Mac · %1 unified memory</source>
        <translation>Dieser Mac · %1 gemeinsamer Speicher</translation>
    </message>
    <message>
        <source>Apple silicon · %1 unified memory</source>
        <translation>Apple Silicon · %1 gemeinsamer Speicher</translation>
    </message>
    <message numerus="yes">
        <source>This machine&apos;s CPU · %n cores · %1 RAM</source>
        <translation>
            <numerusform>CPU dieses Rechners · %n Kern · %1 RAM</numerusform>
            <numerusform>CPU dieses Rechners · %n Kerne · %1 RAM</numerusform>
        </translation>
    </message>
    <message>
        <source>CPU only · %1 RAM</source>
        <translation>Nur CPU · %1 RAM</translation>
    </message>
    <message>
        <source>the CUDA context and libraries keep about 6 % (at least 512 MiB)</source>
        <translation>CUDA-Kontext und Bibliotheken belegen etwa 6 % (mindestens 512 MiB)</translation>
    </message>
    <message>
        <source>macOS lets Metal use about 2/3 of unified memory up to 36 GB, 3/4 above</source>
        <translation>macOS lässt Metal bis 36 GB etwa 2/3 des gemeinsamen Speichers nutzen, darüber 3/4</translation>
    </message>
    <message>
        <source>the OS and desktop keep a quarter of RAM (at least 2 GiB)</source>
        <translation>Betriebssystem und Desktop behalten ein Viertel des RAM (mindestens 2 GiB)</translation>
    </message>
    <message>
        <source>Predicted step time: %1 s (from this machine&apos;s measured speed)</source>
        <translation>Vorhergesagte Schrittzeit: %1 s (aus der gemessenen Geschwindigkeit dieses Rechners)</translation>
    </message>
    <message>
        <source>Speeds are typical figures, not measured on this machine (Measure speed on the Hardware page).</source>
        <translation>Die Geschwindigkeiten sind typische Werte, nicht auf diesem Rechner gemessen (Geschwindigkeit messen auf der Seite Hardware).</translation>
    </message>
</context>
<context>
    <name>headroom::ui::BaseModelBox</name>
    <message>
        <source>Base model folder</source>
        <translation>Ordner des Basismodells</translation>
    </message>
    <message>
        <source>A Hugging Face folder: config.json, *.safetensors, tokenizer</source>
        <translation>Ein Hugging-Face-Ordner: config.json, *.safetensors, Tokenizer</translation>
    </message>
    <message>
        <source>Bro&amp;wse…</source>
        <translation>Durchsu&amp;chen…</translation>
    </message>
    <message>
        <source>Choose the base model folder</source>
        <translation>Den Ordner des Basismodells wählen</translation>
    </message>
    <message>
        <source>Choose a Pretrained Model Folder</source>
        <translation>Ordner eines vortrainierten Modells wählen</translation>
    </message>
    <message>
        <source>Choose the folder of a pretrained model.</source>
        <translation>Wählen Sie den Ordner eines vortrainierten Modells.</translation>
    </message>
    <message>
        <source>Reading the model folder…</source>
        <translation>Der Modellordner wird gelesen…</translation>
    </message>
    <message>
        <source>Memory plan (%1): %2</source>
        <translation>Speicherplan (%1): %2</translation>
    </message>
    <message>
        <source>The weights alone need more than the %1 budget of %2 in fp32.</source>
        <translation>Schon die Gewichte brauchen in fp32 mehr als das Budget von %1 auf %2.</translation>
    </message>
    <message>
        <source>The fp32 weights take %1 % of the %2 budget of %3; training needs more for gradients, optimizer state and activations.</source>
        <translation>Die fp32-Gewichte belegen %1 % des Budgets von %2 auf %3; das Training braucht zusätzlich Speicher für Gradienten, Optimiererzustand und Aktivierungen.</translation>
    </message>
</context>
<context>
    <name>headroom::ui::ChatPreviewPanel</name>
    <message>
        <source>Chat template</source>
        <translation>Chat-Vorlage</translation>
    </message>
    <message>
        <source>How each conversation becomes the text the model trains on (data.chat_template); the Try tab chats with the same template</source>
        <translation>Wie jede Unterhaltung zu dem Text wird, auf dem das Modell trainiert (data.chat_template); der Tab „Ausprobieren“ chattet mit derselben Vorlage</translation>
    </message>
    <message>
        <source>ChatML (built in)</source>
        <translation>ChatML (eingebaut)</translation>
    </message>
    <message>
        <source>A template file…</source>
        <translation>Eine Vorlagendatei…</translation>
    </message>
    <message>
        <source>Chat template file</source>
        <translation>Chat-Vorlagendatei</translation>
    </message>
    <message>
        <source>A .jinja file, or a tokenizer_config.json holding &quot;chat_template&quot;</source>
        <translation>Eine .jinja-Datei oder eine tokenizer_config.json mit &quot;chat_template&quot;</translation>
    </message>
    <message>
        <source>Br&amp;owse…</source>
        <translation>Durch&amp;suchen…</translation>
    </message>
    <message>
        <source>Choose the chat template file</source>
        <translation>Die Chat-Vorlagendatei wählen</translation>
    </message>
    <message>
        <source>Learn from</source>
        <translation>Lernen aus</translation>
    </message>
    <message>
        <source>The tokens the model learns to write (data.train_on); the rest of the conversation is context it reads</source>
        <translation>Die Tokens, die das Modell zu schreiben lernt (data.train_on); der Rest der Unterhaltung ist Kontext, den es liest</translation>
    </message>
    <message>
        <source>The assistant&apos;s replies</source>
        <translation>Die Antworten des Assistenten</translation>
    </message>
    <message>
        <source>The last reply only</source>
        <translation>Nur die letzte Antwort</translation>
    </message>
    <message>
        <source>Everything (the whole conversation)</source>
        <translation>Alles (die ganze Unterhaltung)</translation>
    </message>
    <message>
        <source>&amp;Chat template:</source>
        <translation>&amp;Chat-Vorlage:</translation>
    </message>
    <message>
        <source>&amp;Learn from:</source>
        <translation>&amp;Lernen aus:</translation>
    </message>
    <message>
        <source>Conversations as the model sees them:</source>
        <translation>Unterhaltungen, wie das Modell sie sieht:</translation>
    </message>
    <message>
        <source>Previous conversation</source>
        <translation>Vorige Unterhaltung</translation>
    </message>
    <message>
        <source>Next conversation</source>
        <translation>Nächste Unterhaltung</translation>
    </message>
    <message>
        <source>The conversation as rendered, learned text highlighted</source>
        <translation>Die gerenderte Unterhaltung, gelernter Text hervorgehoben</translation>
    </message>
    <message>
        <source>The model&apos;s own</source>
        <translation>Die des Modells</translation>
    </message>
    <message>
        <source>Choose a Chat Template</source>
        <translation>Chat-Vorlage wählen</translation>
    </message>
    <message>
        <source>Chat templates (*.jinja *.json);;All files (*)</source>
        <translation>Chat-Vorlagen (*.jinja *.json);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>Choose the chat template file.</source>
        <translation>Wählen Sie die Chat-Vorlagendatei.</translation>
    </message>
    <message>
        <source>%1: no such file</source>
        <translation>%1: Datei nicht gefunden</translation>
    </message>
    <message>
        <source>A model made from scratch has no chat template of its own: training renders every conversation with data.chat_template (%1), and the Try tab chats with the same template. Its tokenizer is made when it trains, so there are no tokens to show yet.</source>
        <translation>Ein von Grund auf neu erstelltes Modell hat keine eigene Chat-Vorlage: Das Training rendert jede Unterhaltung mit data.chat_template (%1), und der Tab „Ausprobieren“ chattet mit derselben Vorlage. Sein Tokenizer entsteht erst beim Training, daher gibt es noch keine Tokens zu zeigen.</translation>
    </message>
    <message>
        <source>ChatML</source>
        <translation>ChatML</translation>
    </message>
    <message>
        <source>Rendering the first conversations…</source>
        <translation>Die ersten Unterhaltungen werden gerendert…</translation>
    </message>
    <message>
        <source>Cannot render the conversations: %1</source>
        <translation>Die Unterhaltungen können nicht gerendert werden: %1</translation>
    </message>
    <message>
        <source>The file holds no conversation.</source>
        <translation>Die Datei enthält keine Unterhaltung.</translation>
    </message>
    <message numerus="yes">
        <source>%n conversations read (the whole file)</source>
        <translation>
            <numerusform>%n Unterhaltung gelesen (die ganze Datei)</numerusform>
            <numerusform>%n Unterhaltungen gelesen (die ganze Datei)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>The first %n conversations read</source>
        <translation>
            <numerusform>Die erste %n Unterhaltung gelesen</numerusform>
            <numerusform>Die ersten %n Unterhaltungen gelesen</numerusform>
        </translation>
    </message>
    <message>
        <source>template: %1</source>
        <translation>Vorlage: %1</translation>
    </message>
    <message>
        <source>%1 tokens: %2 learned (%3 %), %4 context the model reads without learning it</source>
        <translation>%1 Tokens: %2 gelernt (%3 %), %4 Kontext, den das Modell liest, ohne ihn zu lernen</translation>
    </message>
    <message>
        <source>All fit the context of %1 tokens (model.seq_len).</source>
        <translation>Alle passen in den Kontext von %1 Tokens (model.seq_len).</translation>
    </message>
    <message numerus="yes">
        <source>%n longer than the context of %1 tokens + 1 (model.seq_len): training cuts them after the last reply that fits.</source>
        <translation>
            <numerusform>%n länger als der Kontext von %1 Tokens + 1 (model.seq_len): Das Training schneidet sie nach der letzten Antwort ab, die hineinpasst.</numerusform>
            <numerusform>%n länger als der Kontext von %1 Tokens + 1 (model.seq_len): Das Training schneidet sie nach der letzten Antwort ab, die hineinpasst.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n with nothing to learn within the context: training skips them.</source>
        <translation>
            <numerusform>%n ohne etwas zu lernen innerhalb des Kontexts: Das Training überspringt sie.</numerusform>
            <numerusform>%n ohne etwas zu lernen innerhalb des Kontexts: Das Training überspringt sie.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>line %1 · %n tokens, %2 learned</source>
        <translation>
            <numerusform>Zeile %1 · %n Token, %2 gelernt</numerusform>
            <numerusform>Zeile %1 · %n Tokens, %2 gelernt</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>headroom::ui::ChatTryPanel</name>
    <message>
        <source>System prompt</source>
        <translation>Systemprompt</translation>
    </message>
    <message>
        <source>Optional: how the model should behave, sent before the conversation</source>
        <translation>Optional: wie sich das Modell verhalten soll, vor der Unterhaltung gesendet</translation>
    </message>
    <message>
        <source>S&amp;ystem prompt:</source>
        <translation>S&amp;ystemprompt:</translation>
    </message>
    <message>
        <source>Conversation</source>
        <translation>Unterhaltung</translation>
    </message>
    <message>
        <source>Your messages and the model&apos;s replies appear here.</source>
        <translation>Ihre Nachrichten und die Antworten des Modells erscheinen hier.</translation>
    </message>
    <message>
        <source>Message</source>
        <translation>Nachricht</translation>
    </message>
    <message>
        <source>Your message (Return sends, Shift+Return starts a new line)</source>
        <translation>Ihre Nachricht (Eingabe sendet, Umschalt+Eingabe beginnt eine neue Zeile)</translation>
    </message>
    <message>
        <source>Se&amp;nd</source>
        <translation>Se&amp;nden</translation>
    </message>
    <message>
        <source>Send the message; the model replies to the whole conversation (Return in the message)</source>
        <translation>Die Nachricht senden; das Modell antwortet auf die ganze Unterhaltung (Eingabe in der Nachricht)</translation>
    </message>
    <message>
        <source>St&amp;op</source>
        <translation>St&amp;opp</translation>
    </message>
    <message>
        <source>Stop the reply after the current token</source>
        <translation>Die Antwort nach dem aktuellen Token anhalten</translation>
    </message>
    <message>
        <source>C&amp;lear</source>
        <translation>&amp;Leeren</translation>
    </message>
    <message>
        <source>Forget the conversation and start a new one</source>
        <translation>Die Unterhaltung vergessen und eine neue beginnen</translation>
    </message>
    <message>
        <source>Locate &amp;Base Model…</source>
        <translation>&amp;Basismodell suchen…</translation>
    </message>
    <message>
        <source>The model is still replying: wait for it, or stop it.</source>
        <translation>Das Modell antwortet noch: Warten Sie oder halten Sie es an.</translation>
    </message>
    <message>
        <source>There are no weights to chat with yet.</source>
        <translation>Es gibt noch keine Gewichte, mit denen man chatten kann.</translation>
    </message>
    <message>
        <source>Type a message first: the model replies to it.</source>
        <translation>Geben Sie zuerst eine Nachricht ein: Das Modell antwortet darauf.</translation>
    </message>
    <message>
        <source>Loading the base model…</source>
        <translation>Das Basismodell wird geladen…</translation>
    </message>
    <message>
        <source>Loading the weights of run %1…</source>
        <translation>Die Gewichte von Lauf %1 werden geladen…</translation>
    </message>
    <message>
        <source>Stopping…</source>
        <translation>Wird angehalten…</translation>
    </message>
    <message>
        <source>The base model is replying…</source>
        <translation>Das Basismodell antwortet…</translation>
    </message>
    <message>
        <source>Run %1 is replying…</source>
        <translation>Lauf %1 antwortet…</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>angehalten</translation>
    </message>
    <message>
        <source>ended at the end of its turn</source>
        <translation>am Ende seines Zugs beendet</translation>
    </message>
    <message>
        <source>reached the token limit</source>
        <translation>Token-Grenze erreicht</translation>
    </message>
    <message numerus="yes">
        <source>%n new tokens in %1 s (%2 tokens/s); %3.</source>
        <translation>
            <numerusform>%n neues Token in %1 s (%2 Tokens/s); %3.</numerusform>
            <numerusform>%n neue Tokens in %1 s (%2 Tokens/s); %3.</numerusform>
        </translation>
    </message>
    <message>
        <source>You</source>
        <translation>Sie</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>Modell</translation>
    </message>
</context>
<context>
    <name>headroom::ui::CompareView</name>
    <message>
        <source>Runs to compare</source>
        <translation>Zu vergleichende Läufe</translation>
    </message>
    <message>
        <source>R&amp;uns to compare:</source>
        <translation>Zu vergleichende L&amp;äufe:</translation>
    </message>
    <message>
        <source>Only &amp;differences</source>
        <translation>Nur &amp;Unterschiede</translation>
    </message>
    <message>
        <source>Loss</source>
        <translation>Verlust</translation>
    </message>
    <message>
        <source>step</source>
        <translation>Schritt</translation>
    </message>
    <message>
        <source>loss</source>
        <translation>Verlust</translation>
    </message>
    <message>
        <source>Peak memory</source>
        <translation>Spitzenspeicher</translation>
    </message>
    <message>
        <source>MiB</source>
        <translation>MiB</translation>
    </message>
    <message>
        <source>Run %1 · %2 steps · %3</source>
        <translation>Lauf %1 · %2 Schritte · %3</translation>
    </message>
    <message>
        <source>run %1</source>
        <translation>Lauf %1</translation>
    </message>
    <message>
        <source>status</source>
        <translation>Status</translation>
    </message>
    <message>
        <source>steps</source>
        <translation>Schritte</translation>
    </message>
    <message>
        <source>final loss</source>
        <translation>Endverlust</translation>
    </message>
    <message>
        <source>final validation loss</source>
        <translation>Endverlust (Validierung)</translation>
    </message>
    <message>
        <source>peak memory</source>
        <translation>Spitzenspeicher</translation>
    </message>
    <message>
        <source>mean throughput</source>
        <translation>mittlerer Durchsatz</translation>
    </message>
    <message>
        <source>OOM back-offs</source>
        <translation>OOM-Rückstufungen</translation>
    </message>
    <message>
        <source>ran on</source>
        <translation>lief auf</translation>
    </message>
    <message>
        <source>%1 tokens/s</source>
        <translation>%1 Token/s</translation>
    </message>
    <message>
        <source>%1 samples/s</source>
        <translation>%1 Beispiele/s</translation>
    </message>
    <message>
        <source>Setting</source>
        <translation>Einstellung</translation>
    </message>
    <message>
        <source>Run %1</source>
        <translation>Lauf %1</translation>
    </message>
    <message>
        <source>validation</source>
        <translation>Validierung</translation>
    </message>
    <message>
        <source>mean balancing loss</source>
        <translation>mittlerer Balancing-Loss</translation>
    </message>
    <message>
        <source>mean router z-loss</source>
        <translation>mittlerer Router-z-Loss</translation>
    </message>
    <message>
        <source>mean dropped tokens</source>
        <translation>mittlere verworfene Tokens</translation>
    </message>
    <message>
        <source>final reward margin</source>
        <translation>letzter Belohnungsabstand</translation>
    </message>
    <message>
        <source>final reward accuracy</source>
        <translation>letzte Belohnungsgenauigkeit</translation>
    </message>
</context>
<context>
    <name>headroom::ui::ConfigWizard</name>
    <message>
        <source>New Project</source>
        <translation>Neues Projekt</translation>
    </message>
</context>
<context>
    <name>headroom::ui::DataPage</name>
    <message>
        <source>Task and data</source>
        <translation>Aufgabe und Daten</translation>
    </message>
    <message>
        <source>Choose what to train and the file to learn from. The whole file is checked before you can go on.</source>
        <translation>Wählen Sie, was trainiert wird und aus welcher Datei gelernt wird. Die ganze Datei wird geprüft, bevor es weitergeht.</translation>
    </message>
    <message>
        <source>Recipe</source>
        <translation>Rezept</translation>
    </message>
    <message>
        <source>Tabular model (CSV, predicts a column)</source>
        <translation>Tabellenmodell (CSV, sagt eine Spalte vorher)</translation>
    </message>
    <message>
        <source>Data file</source>
        <translation>Datendatei</translation>
    </message>
    <message>
        <source>&amp;Browse…</source>
        <translation>Durch&amp;suchen…</translation>
    </message>
    <message>
        <source>Choose the data file</source>
        <translation>Datendatei wählen</translation>
    </message>
    <message>
        <source>Tokenizer</source>
        <translation>Tokenizer</translation>
    </message>
    <message>
        <source>Bytes (no training needed)</source>
        <translation>Bytes (kein Training nötig)</translation>
    </message>
    <message>
        <source>BPE (SentencePiece, trained on the file)</source>
        <translation>BPE (SentencePiece, auf der Datei trainiert)</translation>
    </message>
    <message>
        <source>Unigram (SentencePiece, trained on the file)</source>
        <translation>Unigram (SentencePiece, auf der Datei trainiert)</translation>
    </message>
    <message>
        <source>Target column</source>
        <translation>Zielspalte</translation>
    </message>
    <message>
        <source>&amp;Recipe:</source>
        <translation>&amp;Rezept:</translation>
    </message>
    <message>
        <source>&amp;Data file:</source>
        <translation>&amp;Datendatei:</translation>
    </message>
    <message>
        <source>&amp;Tokenizer:</source>
        <translation>&amp;Tokenizer:</translation>
    </message>
    <message>
        <source>T&amp;arget column:</source>
        <translation>Zielsp&amp;alte:</translation>
    </message>
    <message>
        <source>Preview of the first records</source>
        <translation>Vorschau der ersten Datensätze</translation>
    </message>
    <message>
        <source>&amp;First records:</source>
        <translation>&amp;Erste Datensätze:</translation>
    </message>
    <message>
        <source>Choose Data</source>
        <translation>Daten wählen</translation>
    </message>
    <message>
        <source>Choose a data file.</source>
        <translation>Wählen Sie eine Datendatei.</translation>
    </message>
    <message>
        <source>Checking the data file…</source>
        <translation>Datendatei wird geprüft…</translation>
    </message>
    <message>
        <source>%1 file, %2 records, %3</source>
        <translation>%1-Datei, %2 Datensätze, %3</translation>
    </message>
    <message>
        <source>The data file reads cleanly.</source>
        <translation>Die Datendatei lässt sich fehlerfrei lesen.</translation>
    </message>
    <message>
        <source>Start from a pretrained model (Hugging Face folder)</source>
        <translation>Von einem vortrainierten Modell ausgehen (Hugging-Face-Ordner)</translation>
    </message>
    <message>
        <source>Base &amp;model:</source>
        <translation>Basis&amp;modell:</translation>
    </message>
    <message>
        <source>Choose a data file to see it tokenized.</source>
        <translation>Wählen Sie eine Datendatei, um sie in Tokens zerlegt zu sehen.</translation>
    </message>
    <message>
        <source>Nothing to tokenize: %1</source>
        <translation>Nichts zu tokenisieren: %1</translation>
    </message>
    <message>
        <source>Tokenizing the first lines…</source>
        <translation>Die ersten Zeilen werden tokenisiert…</translation>
    </message>
    <message>
        <source>Reading the model folder…</source>
        <translation>Der Modellordner wird gelesen…</translation>
    </message>
    <message>
        <source>Choose the model folder to see its tokenizer at work.</source>
        <translation>Wählen Sie den Modellordner, um seinen Tokenizer bei der Arbeit zu sehen.</translation>
    </message>
    <message>
        <source>The model folder cannot be used: %1</source>
        <translation>Der Modellordner kann nicht verwendet werden: %1</translation>
    </message>
    <message>
        <source>Training the tokenizer on the first lines…</source>
        <translation>Der Tokenizer wird auf den ersten Zeilen trainiert…</translation>
    </message>
    <message>
        <source>Cannot tokenize the file: %1</source>
        <translation>Die Datei kann nicht tokenisiert werden: %1</translation>
    </message>
    <message>
        <source>A text, JSON, JSONL or CSV file (or drop one here)</source>
        <translation>Eine Text-, JSON-, JSONL- oder CSV-Datei (oder hier ablegen)</translation>
    </message>
    <message>
        <source>Retrieval data: a JSON array or a JSONL file (one object per line) of records with &quot;query&quot;, &quot;positive&quot; (or &quot;positives&quot;, a list) and optionally &quot;negatives&quot; (hard negatives, a list), e.g. {&quot;query&quot;: &quot;capital of France&quot;, &quot;positive&quot;: &quot;Paris is the capital of France.&quot;, &quot;negatives&quot;: [&quot;Lyon is a city in France.&quot;]}</source>
        <translation>Suchdaten: ein JSON-Array oder eine JSONL-Datei (ein Objekt pro Zeile) mit Datensätzen aus &quot;query&quot;, &quot;positive&quot; (oder &quot;positives&quot;, eine Liste) und optional &quot;negatives&quot; (harte Negative, eine Liste), z. B. {&quot;query&quot;: &quot;capital of France&quot;, &quot;positive&quot;: &quot;Paris is the capital of France.&quot;, &quot;negatives&quot;: [&quot;Lyon is a city in France.&quot;]}</translation>
    </message>
    <message>
        <source>Data files (*.txt *.json *.jsonl *.csv);;All files (*)</source>
        <translation>Datendateien (*.txt *.json *.jsonl *.csv);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>New GPT language model from scratch (text, JSONL or CSV text column)</source>
        <translation>Neues GPT-Sprachmodell von Grund auf (Text, JSONL oder CSV-Textspalte)</translation>
    </message>
    <message>
        <source>&amp;Pack short records side by side into full windows</source>
        <translation>Kurze Datensätze nebeneinander in volle Fenster &amp;packen</translation>
    </message>
    <message>
        <source>data.packing: several records share one window of model.seq_len tokens, each seeing only itself, instead of one window per record padded to the longest of its batch. The same losses, far fewer padding tokens when records are short.</source>
        <translation>data.packing: Mehrere Datensätze teilen sich ein Fenster von model.seq_len Token, jeder sieht nur sich selbst, statt ein Fenster je Datensatz, aufgefüllt auf den längsten seines Batches. Dieselben Verluste, bei kurzen Datensätzen weit weniger Füll-Token.</translation>
    </message>
    <message>
        <source>&amp;Objective:</source>
        <translation>&amp;Ziel:</translation>
    </message>
</context>
<context>
    <name>headroom::ui::EmptyProjectView</name>
    <message>
        <source>No project open</source>
        <translation>Kein Projekt geöffnet</translation>
    </message>
    <message>
        <source>This machine</source>
        <translation>Dieser Rechner</translation>
    </message>
    <message>
        <source>Start from a pretrained model — a Hugging Face folder such as Llama, Qwen or GPT-2 — and fine-tune it on your own text. Or train a small model from scratch on text or CSV data, or open an existing Headroom project (.headroom).</source>
        <translation>Beginnen Sie mit einem vortrainierten Modell – einem Hugging-Face-Ordner wie Llama, Qwen oder GPT-2 – und passen Sie es mit Ihren eigenen Texten an. Oder trainieren Sie ein kleines Modell von Grund auf mit Text- oder CSV-Daten, oder öffnen Sie ein vorhandenes Headroom-Projekt (.headroom).</translation>
    </message>
    <message>
        <source>Start from a &amp;Pretrained Model…</source>
        <translation>Mit einem &amp;vortrainierten Modell beginnen…</translation>
    </message>
    <message>
        <source>New Model from &amp;Scratch…</source>
        <translation>Neues Modell von &amp;Grund auf…</translation>
    </message>
    <message>
        <source>&amp;Open Project…</source>
        <translation>Projekt ö&amp;ffnen…</translation>
    </message>
    <message>
        <source>Recent models:</source>
        <translation>Zuletzt verwendete Modelle:</translation>
    </message>
    <message>
        <source>Start from %1</source>
        <translation>Mit %1 beginnen</translation>
    </message>
</context>
<context>
    <name>headroom::ui::HardwarePage</name>
    <message>
        <source>Hardware</source>
        <translation>Hardware</translation>
    </message>
    <message>
        <source>Choose the machine to plan the training for and how much memory it may use.</source>
        <translation>Wählen Sie den Rechner, für den das Training geplant wird, und wie viel Speicher es nutzen darf.</translation>
    </message>
    <message>
        <source>Hardware profile</source>
        <translation>Hardwareprofil</translation>
    </message>
    <message>
        <source>This machine</source>
        <translation>Dieser Rechner</translation>
    </message>
    <message>
        <source>Plan for an Apple computer (MPS)</source>
        <translation>Für einen Apple-Rechner planen (MPS)</translation>
    </message>
    <message>
        <source>Plan for a CUDA GPU</source>
        <translation>Für eine CUDA-GPU planen</translation>
    </message>
    <message>
        <source>Plan for a CPU</source>
        <translation>Für eine CPU planen</translation>
    </message>
    <message>
        <source>Memory budget in GiB</source>
        <translation>Speicherbudget in GiB</translation>
    </message>
    <message>
        <source> GiB</source>
        <translation> GiB</translation>
    </message>
    <message>
        <source>&amp;Plan for:</source>
        <translation>&amp;Planen für:</translation>
    </message>
    <message>
        <source>Memory &amp;budget:</source>
        <translation>Speicher&amp;budget:</translation>
    </message>
    <message>
        <source>%1 of physical memory. Default budget: %2.</source>
        <translation>%1 physischer Speicher. Standardbudget: %2.</translation>
    </message>
    <message>
        <source>&lt;b&gt;This machine&lt;/b&gt;:&lt;br&gt;%1</source>
        <translation>&lt;b&gt;Dieser Rechner&lt;/b&gt;:&lt;br&gt;%1</translation>
    </message>
    <message>
        <source>&amp;Measure speed</source>
        <translation>Geschwindigkeit &amp;messen</translation>
    </message>
    <message>
        <source>Times matrix products and attention in each precision on this device (a few seconds); the plan then uses the measured speeds</source>
        <translation>Misst Matrixprodukte und Attention in jeder Genauigkeit auf diesem Gerät (einige Sekunden); der Plan verwendet dann die gemessenen Geschwindigkeiten</translation>
    </message>
    <message>
        <source>Speed:</source>
        <translation>Geschwindigkeit:</translation>
    </message>
    <message>
        <source>Measuring the speed of %1...</source>
        <translation>Geschwindigkeit von %1 wird gemessen …</translation>
    </message>
    <message>
        <source>Typical speeds of this kind of machine (only this machine&apos;s devices can be measured).</source>
        <translation>Typische Geschwindigkeiten dieser Art von Rechner (nur die Geräte dieses Rechners lassen sich messen).</translation>
    </message>
    <message>
        <source>Not calibrated: the plan assumes typical speeds per precision.</source>
        <translation>Nicht kalibriert: Der Plan nimmt typische Geschwindigkeiten je Genauigkeit an.</translation>
    </message>
    <message>
        <source>Not calibrated: %1</source>
        <translation>Nicht kalibriert: %1</translation>
    </message>
    <message>
        <source>%1 not supported</source>
        <translation>%1 nicht unterstützt</translation>
    </message>
    <message>
        <source>%1 %2 GFLOP/s</source>
        <translation>%1 %2 GFLOP/s</translation>
    </message>
    <message>
        <source>%1 %2 GFLOP/s (%3× fp32)</source>
        <translation>%1 %2 GFLOP/s (%3× fp32)</translation>
    </message>
    <message>
        <source>Measured matrix-product speed: %1.</source>
        <translation>Gemessene Geschwindigkeit der Matrixprodukte: %1.</translation>
    </message>
    <message>
        <source>fp32 matrix products run through %1.</source>
        <translation>fp32-Matrixprodukte laufen über %1.</translation>
    </message>
    <message>
        <source>bf16 is %1× slower than fp32 here: the plan and the out-of-memory ladder will not use it.</source>
        <translation>bf16 ist hier %1× langsamer als fp32: Der Plan und die Eskalationsleiter bei Speichermangel verwenden es nicht.</translation>
    </message>
</context>
<context>
    <name>headroom::ui::Language</name>
    <message>
        <source>System default</source>
        <translation>Systemstandard</translation>
    </message>
    <message>
        <source>System default (%1)</source>
        <translation>Systemstandard (%1)</translation>
    </message>
</context>
<context>
    <name>headroom::ui::LiveView</name>
    <message>
        <source>No run yet: press Start to train this project.</source>
        <translation>Noch kein Lauf: Start drücken, um dieses Projekt zu trainieren.</translation>
    </message>
    <message>
        <source>S&amp;mooth loss</source>
        <translation>Verlust &amp;glätten</translation>
    </message>
    <message>
        <source>Smoothing weight</source>
        <translation>Glättungsgewicht</translation>
    </message>
    <message>
        <source>Weight of the previous value in the moving average</source>
        <translation>Gewicht des vorigen Werts im gleitenden Mittel</translation>
    </message>
    <message>
        <source>&amp;Log scale</source>
        <translation>&amp;Logarithmische Skala</translation>
    </message>
    <message>
        <source>E&amp;xport Plots…</source>
        <translation>Diagramme e&amp;xportieren…</translation>
    </message>
    <message>
        <source>Export Plots</source>
        <translation>Diagramme exportieren</translation>
    </message>
    <message>
        <source>PNG images (*.png);;PDF documents (*.pdf)</source>
        <translation>PNG-Bilder (*.png);;PDF-Dokumente (*.pdf)</translation>
    </message>
    <message>
        <source>Could not write %1.</source>
        <translation>%1 konnte nicht geschrieben werden.</translation>
    </message>
    <message>
        <source>Full &amp;budget scale</source>
        <translation>Ganzes &amp;Budget zeigen</translation>
    </message>
    <message>
        <source>Scale the memory plot to the whole budget instead of the run&apos;s memory</source>
        <translation>Die Speicherachse bis zum ganzen Budget statt bis zum Speicher des Laufs skalieren</translation>
    </message>
</context>
<context>
    <name>headroom::ui::LocalRanksRun</name>
    <message>
        <source>A run on several processes is already going.</source>
        <translation>Ein Lauf auf mehreren Prozessen läuft bereits.</translation>
    </message>
    <message>
        <source>Runs on several processes start from the command line on this system: see docs/DISTRIBUTED.md.</source>
        <translation>Läufe auf mehreren Prozessen werden auf diesem System von der Kommandozeile gestartet: siehe docs/DISTRIBUTED.md.</translation>
    </message>
    <message>
        <source>Cannot start %1 processes: %2 is missing (it is installed next to the app).</source>
        <translation>%1 Prozesse können nicht gestartet werden: %2 fehlt (es wird neben der App installiert).</translation>
    </message>
    <message>
        <source>Cannot start %1: %2</source>
        <translation>%1 kann nicht gestartet werden: %2</translation>
    </message>
</context>
<context>
    <name>headroom::ui::LogView</name>
    <message>
        <source>All entries</source>
        <translation>Alle Einträge</translation>
    </message>
    <message>
        <source>Memory events</source>
        <translation>Speicherereignisse</translation>
    </message>
    <message>
        <source>Checkpoints</source>
        <translation>Checkpoints</translation>
    </message>
    <message>
        <source>Problems</source>
        <translation>Probleme</translation>
    </message>
    <message>
        <source>State changes</source>
        <translation>Zustandswechsel</translation>
    </message>
    <message>
        <source>Show</source>
        <translation>Anzeigen</translation>
    </message>
    <message>
        <source>Filter messages</source>
        <translation>Meldungen filtern</translation>
    </message>
    <message>
        <source>&amp;Show:</source>
        <translation>&amp;Anzeigen:</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>Zeit</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>Lauf</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>Schritt</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>Art</translation>
    </message>
    <message>
        <source>Message</source>
        <translation>Meldung</translation>
    </message>
    <message>
        <source>&lt;b&gt;The run could not continue.&lt;/b&gt; %1</source>
        <translation>&lt;b&gt;Der Lauf konnte nicht fortgesetzt werden.&lt;/b&gt; %1</translation>
    </message>
</context>
<context>
    <name>headroom::ui::LoraControls</name>
    <message>
        <source>Train &amp;LoRA adapters (the base model stays frozen)</source>
        <translation>&amp;LoRA-Adapter trainieren (das Basismodell bleibt eingefroren)</translation>
    </message>
    <message>
        <source>Train LoRA adapters</source>
        <translation>LoRA-Adapter trainieren</translation>
    </message>
    <message>
        <source>Off: every weight of the model is trained (needs memory for their gradients and optimizer state).</source>
        <translation>Aus: Alle Gewichte des Modells werden trainiert (braucht Speicher für ihre Gradienten und den Optimiererzustand).</translation>
    </message>
    <message>
        <source>LoRA rank</source>
        <translation>LoRA-Rang</translation>
    </message>
    <message>
        <source>All linear layers</source>
        <translation>Alle linearen Schichten</translation>
    </message>
    <message>
        <source>lora.targets=all-linear: every projection of every block</source>
        <translation>lora.targets=all-linear: jede Projektion jedes Blocks</translation>
    </message>
    <message>
        <source>&amp;Rank:</source>
        <translation>&amp;Rang:</translation>
    </message>
    <message>
        <source>Adapt:</source>
        <translation>Anpassen:</translation>
    </message>
    <message>
        <source>Frozen base held as</source>
        <translation>Eingefrorene Basis gehalten als</translation>
    </message>
    <message>
        <source>fp32 (4 bytes a weight)</source>
        <translation>fp32 (4 Byte je Gewicht)</translation>
    </message>
    <message>
        <source>bf16 (2 bytes)</source>
        <translation>bf16 (2 Byte)</translation>
    </message>
    <message>
        <source>fp16 (2 bytes)</source>
        <translation>fp16 (2 Byte)</translation>
    </message>
    <message>
        <source>int8 (about 1 byte)</source>
        <translation>int8 (etwa 1 Byte)</translation>
    </message>
    <message>
        <source>nf4, 4-bit (about 0.52 bytes)</source>
        <translation>nf4, 4 Bit (etwa 0,52 Byte)</translation>
    </message>
    <message>
        <source>model.base_dtype: how the frozen attention and MLP weights are held. int8 and nf4 are dequantized layer by layer in each step: less memory, somewhat slower steps. Embeddings, norms and the output head stay fp32.</source>
        <translation>model.base_dtype: wie die eingefrorenen Attention- und MLP-Gewichte gehalten werden. int8 und nf4 werden in jedem Schritt Schicht für Schicht dequantisiert: weniger Speicher, etwas langsamere Schritte. Embeddings, Normen und der Ausgabekopf bleiben fp32.</translation>
    </message>
    <message>
        <source>&amp;Base held as:</source>
        <translation>&amp;Basis gehalten als:</translation>
    </message>
</context>
<context>
    <name>headroom::ui::MainWindow</name>
    <message>
        <source>Headroom</source>
        <translation>Headroom</translation>
    </message>
    <message>
        <source>&amp;New Project…</source>
        <translation>&amp;Neues Projekt…</translation>
    </message>
    <message>
        <source>&amp;Open Project…</source>
        <translation>Projekt ö&amp;ffnen…</translation>
    </message>
    <message>
        <source>Open a Headroom project file</source>
        <translation>Eine Headroom-Projektdatei öffnen</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>&amp;Beenden</translation>
    </message>
    <message>
        <source>&amp;Start Training</source>
        <translation>Training &amp;starten</translation>
    </message>
    <message>
        <source>&amp;Pause</source>
        <translation>&amp;Pausieren</translation>
    </message>
    <message>
        <source>S&amp;top</source>
        <translation>S&amp;toppen</translation>
    </message>
    <message>
        <source>&amp;About Headroom</source>
        <translation>Ü&amp;ber Headroom</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>&amp;Datei</translation>
    </message>
    <message>
        <source>&amp;Run</source>
        <translation>&amp;Lauf</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>&amp;Hilfe</translation>
    </message>
    <message>
        <source>Main</source>
        <translation>Haupt</translation>
    </message>
    <message>
        <source>No project</source>
        <translation>Kein Projekt</translation>
    </message>
    <message>
        <source>About Headroom</source>
        <translation>Über Headroom</translation>
    </message>
    <message>
        <source>&lt;h3&gt;Headroom %1&lt;/h3&gt;&lt;p&gt;Train real models on the hardware you have, without out-of-memory errors.&lt;/p&gt;</source>
        <translation>&lt;h3&gt;Headroom %1&lt;/h3&gt;&lt;p&gt;Trainieren Sie echte Modelle auf der Hardware, die Sie haben – ohne Speicherfehler.&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Cannot open project</source>
        <translation>Projekt kann nicht geöffnet werden</translation>
    </message>
    <message>
        <source>Headroom could not open %1:
%2</source>
        <translation>Headroom konnte %1 nicht öffnen:
%2</translation>
    </message>
    <message>
        <source>%1 — Headroom</source>
        <translation>%1 — Headroom</translation>
    </message>
    <message>
        <source>Open Project</source>
        <translation>Projekt öffnen</translation>
    </message>
    <message>
        <source>Headroom projects (*.headroom);;All files (*)</source>
        <translation>Headroom-Projekte (*.headroom);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>&amp;Reload Project</source>
        <translation>Projekt &amp;neu laden</translation>
    </message>
    <message>
        <source>Runs: %1</source>
        <translation>Läufe: %1</translation>
    </message>
    <message>
        <source>&amp;Plan</source>
        <translation>&amp;Plan</translation>
    </message>
    <message>
        <source>&amp;Live</source>
        <translation>&amp;Live</translation>
    </message>
    <message>
        <source>&amp;Compare</source>
        <translation>&amp;Vergleich</translation>
    </message>
    <message>
        <source>Lo&amp;g</source>
        <translation>Pro&amp;tokoll</translation>
    </message>
    <message>
        <source>Project</source>
        <translation>Projekt</translation>
    </message>
    <message>
        <source>A run is training</source>
        <translation>Ein Lauf trainiert</translation>
    </message>
    <message>
        <source>Stop the run and quit? Headroom writes a checkpoint first, so you can continue the run later.</source>
        <translation>Lauf anhalten und beenden? Headroom schreibt zuerst einen Checkpoint, damit Sie den Lauf später fortsetzen können.</translation>
    </message>
    <message>
        <source>a run is training in this window; stop it first</source>
        <translation>in diesem Fenster trainiert ein Lauf; halten Sie ihn zuerst an</translation>
    </message>
    <message>
        <source>No run selected: press Start to train, or pick a run in the Project panel.</source>
        <translation>Kein Lauf ausgewählt: Start drücken, um zu trainieren, oder einen Lauf in der Projektleiste wählen.</translation>
    </message>
    <message>
        <source>no project is open</source>
        <translation>kein Projekt ist geöffnet</translation>
    </message>
    <message>
        <source>a run is writing to the project; wait until it ends</source>
        <translation>ein Lauf schreibt in das Projekt; warten Sie, bis er endet</translation>
    </message>
    <message>
        <source>%1 already exists</source>
        <translation>%1 existiert bereits</translation>
    </message>
    <message>
        <source>cannot copy the project to %1: %2</source>
        <translation>das Projekt kann nicht nach %1 kopiert werden: %2</translation>
    </message>
    <message>
        <source>Stopping: writing a checkpoint before quitting…</source>
        <translation>Wird angehalten: Checkpoint wird vor dem Beenden geschrieben…</translation>
    </message>
    <message>
        <source>Save Project &amp;As…</source>
        <translation>Projekt speichern &amp;unter…</translation>
    </message>
    <message>
        <source>Copy the project, its runs and checkpoints to a new file</source>
        <translation>Das Projekt mit seinen Läufen und Checkpoints in eine neue Datei kopieren</translation>
    </message>
    <message>
        <source>Export &amp;Metrics (CSV)…</source>
        <translation>&amp;Metriken exportieren (CSV)…</translation>
    </message>
    <message>
        <source>Write the selected run&apos;s metrics as CSV</source>
        <translation>Die Metriken des gewählten Laufs als CSV schreiben</translation>
    </message>
    <message>
        <source>Export &amp;Weights…</source>
        <translation>&amp;Gewichte exportieren…</translation>
    </message>
    <message>
        <source>Write the selected run&apos;s latest checkpoint as safetensors</source>
        <translation>Den neuesten Checkpoint des gewählten Laufs als safetensors schreiben</translation>
    </message>
    <message>
        <source>Start a new run with the project&apos;s settings</source>
        <translation>Einen neuen Lauf mit den Einstellungen des Projekts starten</translation>
    </message>
    <message>
        <source>Cannot start</source>
        <translation>Start nicht möglich</translation>
    </message>
    <message>
        <source>&amp;Continue Last Run</source>
        <translation>Letzten Lauf &amp;fortsetzen</translation>
    </message>
    <message>
        <source>Continue the latest run from its last checkpoint</source>
        <translation>Den neuesten Lauf ab seinem letzten Checkpoint fortsetzen</translation>
    </message>
    <message>
        <source>Cannot continue</source>
        <translation>Fortsetzen nicht möglich</translation>
    </message>
    <message>
        <source>Pause after the current optimizer step</source>
        <translation>Nach dem aktuellen Optimiererschritt pausieren</translation>
    </message>
    <message>
        <source>&amp;Resume</source>
        <translation>&amp;Weiter</translation>
    </message>
    <message>
        <source>Stop cleanly: the run writes a checkpoint first</source>
        <translation>Sauber anhalten: der Lauf schreibt zuerst einen Checkpoint</translation>
    </message>
    <message>
        <source>Open &amp;Recent</source>
        <translation>&amp;Zuletzt geöffnet</translation>
    </message>
    <message>
        <source>E&amp;xport</source>
        <translation>E&amp;xportieren</translation>
    </message>
    <message>
        <source>step %v / %m</source>
        <translation>Schritt %v / %m</translation>
    </message>
    <message>
        <source>Training progress</source>
        <translation>Trainingsfortschritt</translation>
    </message>
    <message>
        <source>Save Project As</source>
        <translation>Projekt speichern unter</translation>
    </message>
    <message>
        <source>Headroom projects (*.headroom)</source>
        <translation>Headroom-Projekte (*.headroom)</translation>
    </message>
    <message>
        <source>Export Metrics</source>
        <translation>Metriken exportieren</translation>
    </message>
    <message>
        <source>CSV files (*.csv)</source>
        <translation>CSV-Dateien (*.csv)</translation>
    </message>
    <message>
        <source>Export Weights</source>
        <translation>Gewichte exportieren</translation>
    </message>
    <message>
        <source>safetensors files (*.safetensors)</source>
        <translation>safetensors-Dateien (*.safetensors)</translation>
    </message>
    <message>
        <source>Idle</source>
        <translation>Bereit</translation>
    </message>
    <message>
        <source>Preparing</source>
        <translation>Vorbereitung</translation>
    </message>
    <message>
        <source>Training</source>
        <translation>Training</translation>
    </message>
    <message>
        <source>Paused</source>
        <translation>Pausiert</translation>
    </message>
    <message>
        <source>Stopping</source>
        <translation>Wird angehalten</translation>
    </message>
    <message>
        <source>Finished</source>
        <translation>Fertig</translation>
    </message>
    <message>
        <source>Stopped</source>
        <translation>Angehalten</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>Fehlgeschlagen</translation>
    </message>
    <message>
        <source>%1 h %2 min</source>
        <translation>%1 h %2 min</translation>
    </message>
    <message>
        <source>%1 min %2 s</source>
        <translation>%1 min %2 s</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 s</translation>
    </message>
    <message>
        <source>Open or create a project first.</source>
        <translation>Öffnen oder erstellen Sie zuerst ein Projekt.</translation>
    </message>
    <message>
        <source>A run is already training this project.</source>
        <translation>Dieses Projekt wird bereits trainiert.</translation>
    </message>
    <message>
        <source>Preparing a run…</source>
        <translation>Lauf wird vorbereitet…</translation>
    </message>
    <message>
        <source>Pausing after this step…</source>
        <translation>Pause nach diesem Schritt…</translation>
    </message>
    <message>
        <source>Stopping: writing a checkpoint…</source>
        <translation>Wird angehalten: Checkpoint wird geschrieben…</translation>
    </message>
    <message>
        <source>Run %1 · %2 · %3</source>
        <translation>Lauf %1 · %2 · %3</translation>
    </message>
    <message>
        <source>ETA %1</source>
        <translation>Restzeit %1</translation>
    </message>
    <message>
        <source>Run %1: %2 at step %3 of %4</source>
        <translation>Lauf %1: %2 bei Schritt %3 von %4</translation>
    </message>
    <message>
        <source>Run %1 · %2</source>
        <translation>Lauf %1 · %2</translation>
    </message>
    <message>
        <source>Run %1 · being trained by another process (%2) · live</source>
        <translation>Lauf %1 · wird von einem anderen Prozess trainiert (%2) · live</translation>
    </message>
    <message>
        <source>Run %1 is training in another process</source>
        <translation>Lauf %1 trainiert in einem anderen Prozess</translation>
    </message>
    <message>
        <source>Run %1 ended: %2</source>
        <translation>Lauf %1 beendet: %2</translation>
    </message>
    <message>
        <source>Run %1 · %2 · %3 steps</source>
        <translation>Lauf %1 · %2 · %3 Schritte</translation>
    </message>
    <message>
        <source>This project has no runs yet.</source>
        <translation>Dieses Projekt hat noch keine Läufe.</translation>
    </message>
    <message>
        <source>Wrote %1 rows of run %2 to %3</source>
        <translation>%1 Zeilen von Lauf %2 nach %3 geschrieben</translation>
    </message>
    <message>
        <source>Wrote the weights of run %1 at step %2 to %3</source>
        <translation>Gewichte von Lauf %1 bei Schritt %2 nach %3 geschrieben</translation>
    </message>
    <message>
        <source>&amp;Preferences…</source>
        <translation>&amp;Einstellungen…</translation>
    </message>
    <message>
        <source>&amp;Evaluate on a File…</source>
        <translation>Auf einer Datei &amp;auswerten…</translation>
    </message>
    <message>
        <source>Measure the selected run&apos;s result on a held-out file with the training data&apos;s columns</source>
        <translation>Das Ergebnis des gewählten Laufs auf einer zurückgehaltenen Datei mit den Spalten der Trainingsdaten messen</translation>
    </message>
    <message>
        <source>Evaluate on a File</source>
        <translation>Auf einer Datei auswerten</translation>
    </message>
    <message>
        <source>Data files (*.csv *.txt *.jsonl *.ndjson);;All files (*)</source>
        <translation>Datendateien (*.csv *.txt *.jsonl *.ndjson);;Alle Dateien (*)</translation>
    </message>
    <message numerus="yes">
        <source>%n examples</source>
        <translation>
            <numerusform>%n Beispiel</numerusform>
            <numerusform>%n Beispiele</numerusform>
        </translation>
    </message>
    <message>
        <source>accuracy %1 %</source>
        <translation>Genauigkeit %1 %</translation>
    </message>
    <message>
        <source>RMSE %1</source>
        <translation>RMSE %1</translation>
    </message>
    <message>
        <source>R² %1</source>
        <translation>R² %1</translation>
    </message>
    <message>
        <source>loss %1</source>
        <translation>Verlust %1</translation>
    </message>
    <message>
        <source>latest checkpoint, step %1</source>
        <translation>letzter Checkpoint, Schritt %1</translation>
    </message>
    <message>
        <source>best checkpoint, step %1</source>
        <translation>bester Checkpoint, Schritt %1</translation>
    </message>
    <message>
        <source>Run %1 (%2) on %3: %4</source>
        <translation>Lauf %1 (%2) auf %3: %4</translation>
    </message>
    <message>
        <source>An evaluation is already running.</source>
        <translation>Es läuft bereits eine Auswertung.</translation>
    </message>
    <message>
        <source>Evaluating run %1 on %2…</source>
        <translation>Werte Lauf %1 auf %2 aus…</translation>
    </message>
    <message>
        <source>&amp;Try</source>
        <translation>&amp;Ausprobieren</translation>
    </message>
    <message>
        <source>Create a project from a text or CSV file, optionally starting from a pretrained model</source>
        <translation>Ein Projekt aus einer Text- oder CSV-Datei anlegen, wahlweise ausgehend von einem vortrainierten Modell</translation>
    </message>
    <message>
        <source>Export as &amp;Hugging Face Folder…</source>
        <translation>Als &amp;Hugging-Face-Ordner exportieren…</translation>
    </message>
    <message>
        <source>Export LoRA &amp;Adapter (PEFT)…</source>
        <translation>LoRA-&amp;Adapter exportieren (PEFT)…</translation>
    </message>
    <message>
        <source>&amp;Locate Base Model…</source>
        <translation>Basismodell &amp;suchen…</translation>
    </message>
    <message>
        <source>Point the project at the folder its pretrained base model moved to</source>
        <translation>Dem Projekt den Ordner angeben, in den sein vortrainiertes Basismodell verschoben wurde</translation>
    </message>
    <message>
        <source>Base model not found</source>
        <translation>Basismodell nicht gefunden</translation>
    </message>
    <message>
        <source>The pretrained model this project starts from is not where it was, or its files changed.</source>
        <translation>Das vortrainierte Modell, von dem dieses Projekt ausgeht, liegt nicht mehr am alten Ort, oder seine Dateien haben sich geändert.</translation>
    </message>
    <message>
        <source>Locate Base Model</source>
        <translation>Basismodell suchen</translation>
    </message>
    <message>
        <source>Export</source>
        <translation>Exportieren</translation>
    </message>
    <message>
        <source>Only a project that starts from a pretrained model (model.base) exports in Hugging Face layout.</source>
        <translation>Nur ein Projekt, das von einem vortrainierten Modell ausgeht (model.base), exportiert im Hugging-Face-Format.</translation>
    </message>
    <message>
        <source>Run %1 trained every weight, not LoRA adapters (lora.rank is 0): export it as a Hugging Face folder.</source>
        <translation>Lauf %1 hat alle Gewichte trainiert, keine LoRA-Adapter (lora.rank ist 0): Exportieren Sie ihn als Hugging-Face-Ordner.</translation>
    </message>
    <message>
        <source>Write run %1 as a model folder that Hugging Face Transformers loads</source>
        <translation>Lauf %1 als Modellordner schreiben, den Hugging Face Transformers lädt</translation>
    </message>
    <message>
        <source>Write the LoRA adapters of run %1 for PEFT (adapter_config.json, adapter_model.safetensors)</source>
        <translation>Die LoRA-Adapter von Lauf %1 für PEFT schreiben (adapter_config.json, adapter_model.safetensors)</translation>
    </message>
    <message>
        <source>Export LoRA Adapter to a New Folder</source>
        <translation>LoRA-Adapter in einen neuen Ordner exportieren</translation>
    </message>
    <message>
        <source>Export as Hugging Face Folder to a New Folder</source>
        <translation>Als Hugging-Face-Ordner in einen neuen Ordner exportieren</translation>
    </message>
    <message>
        <source>An export is already running.</source>
        <translation>Es läuft bereits ein Export.</translation>
    </message>
    <message>
        <source>Exporting the LoRA adapters of run %1 to %2…</source>
        <translation>Die LoRA-Adapter von Lauf %1 werden nach %2 exportiert…</translation>
    </message>
    <message>
        <source>Exporting run %1 as a Hugging Face folder to %2…</source>
        <translation>Lauf %1 wird als Hugging-Face-Ordner nach %2 exportiert…</translation>
    </message>
    <message>
        <source>Wrote the LoRA adapters of run %1 at step %2 to %3</source>
        <translation>Die LoRA-Adapter von Lauf %1 bei Schritt %2 nach %3 geschrieben</translation>
    </message>
    <message>
        <source>Wrote run %1 at step %2 as a Hugging Face folder to %3</source>
        <translation>Lauf %1 bei Schritt %2 als Hugging-Face-Ordner nach %3 geschrieben</translation>
    </message>
    <message>
        <source>a run is training this project; wait until it ends</source>
        <translation>ein Lauf trainiert dieses Projekt; warten Sie, bis er endet</translation>
    </message>
    <message>
        <source>The project&apos;s base model is now %1</source>
        <translation>Das Basismodell des Projekts ist jetzt %1</translation>
    </message>
    <message>
        <source>Pro&amp;ject</source>
        <translation>Pro&amp;jekt</translation>
    </message>
    <message>
        <source> (the run held its base as %1: the folder has it dequantized, the adapters merged in)</source>
        <translation> (der Lauf hielt seine Basis als %1: der Ordner enthält sie dequantisiert, mit eingerechneten Adaptern)</translation>
    </message>
    <message>
        <source>Start on Several &amp;Processes…</source>
        <translation>Auf mehreren &amp;Prozessen starten…</translation>
    </message>
    <message>
        <source>Train with data parallel ranks on this machine (headroom-cli train --nproc N)</source>
        <translation>Mit datenparallelen Rängen auf diesem Rechner trainieren (headroom-cli train --nproc N)</translation>
    </message>
    <message>
        <source>Start on Several Processes</source>
        <translation>Auf mehreren Prozessen starten</translation>
    </message>
    <message>
        <source>Processes (ranks), each training its share of every step:</source>
        <translation>Prozesse (Ränge), jeder trainiert seinen Anteil jedes Schritts:</translation>
    </message>
    <message>
        <source>The run on %1 processes ended with exit code %2</source>
        <translation>Der Lauf auf %1 Prozessen endete mit Exit-Code %2</translation>
    </message>
    <message>
        <source>Starting %1 processes…</source>
        <translation>%1 Prozesse werden gestartet…</translation>
    </message>
    <message>
        <source>Pro&amp;file</source>
        <translation>Pro&amp;fil</translation>
    </message>
    <message>
        <source>a profile is running in this window; stop it first</source>
        <translation>in diesem Fenster läuft ein Profil; beenden Sie es zuerst</translation>
    </message>
    <message>
        <source>A profile is running: start the run when it has ended.</source>
        <translation>Ein Profil läuft: Starten Sie den Lauf, wenn es beendet ist.</translation>
    </message>
    <message>
        <source>Stopping every rank after this step…</source>
        <translation>Alle Ränge halten nach diesem Schritt an…</translation>
    </message>
    <message>
        <source>A tabular project has no Hugging Face layout: export its weights as safetensors instead.</source>
        <translation>Ein Tabellenprojekt hat kein Hugging-Face-Layout: exportieren Sie seine Gewichte stattdessen als safetensors.</translation>
    </message>
    <message>
        <source>Export for llama.cpp / &amp;Ollama (GGUF)…</source>
        <translation>Für llama.cpp / &amp;Ollama exportieren (GGUF)…</translation>
    </message>
    <message>
        <source>Open a language model&apos;s project to export it as GGUF.</source>
        <translation>Öffnen Sie das Projekt eines Sprachmodells, um es als GGUF zu exportieren.</translation>
    </message>
    <message>
        <source>Only language models run in llama.cpp and Ollama; this project trains a %1 model.</source>
        <translation>Nur Sprachmodelle laufen in llama.cpp und Ollama; dieses Projekt trainiert ein %1-Modell.</translation>
    </message>
    <message>
        <source>Write the base model as one GGUF file for llama.cpp, Ollama and LM Studio</source>
        <translation>Das Basismodell als eine GGUF-Datei für llama.cpp, Ollama und LM Studio schreiben</translation>
    </message>
    <message>
        <source>Write run %1 as one GGUF file for llama.cpp, Ollama and LM Studio (LoRA adapters merged)</source>
        <translation>Lauf %1 als eine GGUF-Datei für llama.cpp, Ollama und LM Studio schreiben (LoRA-Adapter eingerechnet)</translation>
    </message>
    <message>
        <source>Export for llama.cpp / Ollama (GGUF)</source>
        <translation>Für llama.cpp / Ollama exportieren (GGUF)</translation>
    </message>
    <message>
        <source>GGUF files (*.gguf)</source>
        <translation>GGUF-Dateien (*.gguf)</translation>
    </message>
    <message>
        <source>Exporting the base model as GGUF (%1) to %2…</source>
        <translation>Das Basismodell wird als GGUF (%1) nach %2 exportiert…</translation>
    </message>
    <message>
        <source>Exporting run %1 as GGUF (%2) to %3…</source>
        <translation>Lauf %1 wird als GGUF (%2) nach %3 exportiert…</translation>
    </message>
    <message>
        <source>Wrote the base model to %1</source>
        <translation>Basismodell nach %1 geschrieben</translation>
    </message>
    <message>
        <source>Wrote run %1 at step %2 to %3</source>
        <translation>Lauf %1 bei Schritt %2 nach %3 geschrieben</translation>
    </message>
    <message>
        <source> (GGUF, %1, %2, %3)</source>
        <translation> (GGUF, %1, %2, %3)</translation>
    </message>
    <message>
        <source>; Ollama: ollama create NAME -f %1</source>
        <translation>; Ollama: ollama create NAME -f %1</translation>
    </message>
    <message>
        <source>full precision, largest</source>
        <translation>volle Genauigkeit, am größten</translation>
    </message>
    <message>
        <source>half precision</source>
        <translation>halbe Genauigkeit</translation>
    </message>
    <message>
        <source>8 bits, nearly lossless</source>
        <translation>8 Bit, fast verlustfrei</translation>
    </message>
    <message>
        <source>good quality, smaller</source>
        <translation>gute Qualität, kleiner</translation>
    </message>
    <message>
        <source>smallest, some quality lost</source>
        <translation>am kleinsten, etwas Qualitätsverlust</translation>
    </message>
    <message>
        <source>Also write an &amp;Ollama Modelfile beside the file</source>
        <translation>Auch eine &amp;Ollama-Modelfile neben die Datei schreiben</translation>
    </message>
    <message>
        <source>Measuring the size of each choice…</source>
        <translation>Die Größe jeder Wahl wird gemessen…</translation>
    </message>
    <message>
        <source>&amp;Quantization:</source>
        <translation>&amp;Quantisierung:</translation>
    </message>
    <message>
        <source>Sizes of the file for this run&apos;s weights.</source>
        <translation>Größen der Datei für die Gewichte dieses Laufs.</translation>
    </message>
    <message>
        <source>The sizes could not be measured: %1</source>
        <translation>Die Größen konnten nicht gemessen werden: %1</translation>
    </message>
</context>
<context>
    <name>headroom::ui::MemoryBarsWidget</name>
    <message>
        <source>Predicted memory by role</source>
        <translation>Vorhergesagter Speicher nach Verwendung</translation>
    </message>
    <message>
        <source>Weights</source>
        <translation>Gewichte</translation>
    </message>
    <message>
        <source>Gradients</source>
        <translation>Gradienten</translation>
    </message>
    <message>
        <source>Optimizer state</source>
        <translation>Optimiererzustand</translation>
    </message>
    <message>
        <source>Activations</source>
        <translation>Aktivierungen</translation>
    </message>
    <message>
        <source>Overhead</source>
        <translation>Zusatzbedarf</translation>
    </message>
    <message>
        <source>Peak %1</source>
        <translation>Spitze %1</translation>
    </message>
    <message>
        <source>Budget %1</source>
        <translation>Budget %1</translation>
    </message>
    <message>
        <source>none</source>
        <translation>keins</translation>
    </message>
</context>
<context>
    <name>headroom::ui::MemoryPlanPage</name>
    <message>
        <source>Memory plan</source>
        <translation>Speicherplan</translation>
    </message>
    <message>
        <source>The planner&apos;s prediction of the training step&apos;s peak memory. Change the techniques to see their effect at once.</source>
        <translation>Die Vorhersage des Planers für den Spitzenspeicher eines Trainingsschritts. Ändern Sie die Techniken, um ihre Wirkung sofort zu sehen.</translation>
    </message>
    <message>
        <source>Precision</source>
        <translation>Genauigkeit</translation>
    </message>
    <message>
        <source>fp32 (full precision)</source>
        <translation>fp32 (volle Genauigkeit)</translation>
    </message>
    <message>
        <source>bf16 mixed precision</source>
        <translation>bf16 gemischte Genauigkeit</translation>
    </message>
    <message>
        <source>fp16 mixed precision with loss scaling</source>
        <translation>fp16 gemischte Genauigkeit mit Loss-Skalierung</translation>
    </message>
    <message>
        <source>Activation &amp;checkpointing</source>
        <translation>Aktivierungs-&amp;Checkpointing</translation>
    </message>
    <message>
        <source>Activation checkpointing</source>
        <translation>Aktivierungs-Checkpointing</translation>
    </message>
    <message>
        <source>&amp;8-bit AdamW</source>
        <translation>&amp;8-Bit-AdamW</translation>
    </message>
    <message>
        <source>8-bit AdamW optimizer</source>
        <translation>8-Bit-AdamW-Optimierer</translation>
    </message>
    <message>
        <source>&amp;Offload optimizer state to host memory</source>
        <translation>Optimiererzustand in den Hauptspeicher &amp;auslagern</translation>
    </message>
    <message>
        <source>Offload optimizer state</source>
        <translation>Optimiererzustand auslagern</translation>
    </message>
    <message>
        <source>Micro-batch</source>
        <translation>Mikro-Batch</translation>
    </message>
    <message>
        <source>Gradient accumulation</source>
        <translation>Gradientenakkumulation</translation>
    </message>
    <message>
        <source>Techniques</source>
        <translation>Techniken</translation>
    </message>
    <message>
        <source>&amp;Precision:</source>
        <translation>&amp;Genauigkeit:</translation>
    </message>
    <message>
        <source>&amp;Micro-batch:</source>
        <translation>&amp;Mikro-Batch:</translation>
    </message>
    <message>
        <source>&amp;Accumulation:</source>
        <translation>Akk&amp;umulation:</translation>
    </message>
    <message>
        <source>&amp;Use recommended plan</source>
        <translation>&amp;Empfohlenen Plan übernehmen</translation>
    </message>
    <message>
        <source>Recommended</source>
        <translation>Empfohlen</translation>
    </message>
    <message>
        <source>&amp;Verify</source>
        <translation>&amp;Verifizieren</translation>
    </message>
    <message>
        <source>Verify the plan with real training steps</source>
        <translation>Den Plan mit echten Trainingsschritten prüfen</translation>
    </message>
    <message>
        <source>&amp;Stop verifying</source>
        <translation>Verifizierung &amp;stoppen</translation>
    </message>
    <message>
        <source>Verify on this machine</source>
        <translation>Auf diesem Rechner verifizieren</translation>
    </message>
    <message>
        <source>The settings changed since the verification; verify again.</source>
        <translation>Die Einstellungen haben sich seit der Verifizierung geändert; bitte erneut verifizieren.</translation>
    </message>
    <message>
        <source>Effective batch: %1</source>
        <translation>Effektiver Batch: %1</translation>
    </message>
    <message>
        <source>Cannot create a temporary folder: %1</source>
        <translation>Temporärer Ordner kann nicht angelegt werden: %1</translation>
    </message>
    <message>
        <source>Verifying: preparing a scratch project…</source>
        <translation>Verifizierung: Hilfsprojekt wird vorbereitet…</translation>
    </message>
    <message>
        <source>Cancelling after the current probe…</source>
        <translation>Abbruch nach dem laufenden Versuch…</translation>
    </message>
    <message>
        <source>micro-batch %1: fits, measured peak %2</source>
        <translation>Mikro-Batch %1: passt, gemessene Spitze %2</translation>
    </message>
    <message>
        <source>micro-batch %1: out of memory at %2</source>
        <translation>Mikro-Batch %1: Speicher erschöpft bei %2</translation>
    </message>
    <message>
        <source>Verification cancelled; the plan is unchanged.</source>
        <translation>Verifizierung abgebrochen; der Plan bleibt unverändert.</translation>
    </message>
    <message>
        <source>Verification failed: %1</source>
        <translation>Verifizierung fehlgeschlagen: %1</translation>
    </message>
    <message>
        <source>Verification: %1</source>
        <translation>Verifizierung: %1</translation>
    </message>
    <message>
        <source>Verified: micro-batch %1 × accumulation %2; predicted peak %3, measured %4.</source>
        <translation>Verifiziert: Mikro-Batch %1 × Akkumulation %2; vorhergesagte Spitze %3, gemessen %4.</translation>
    </message>
    <message>
        <source>Verify runs on this machine; choose one of its devices on the Hardware page.</source>
        <translation>Die Verifizierung läuft auf diesem Rechner; wählen Sie auf der Seite „Hardware“ eines seiner Geräte.</translation>
    </message>
    <message>
        <source>Verifying: %1 probes done…</source>
        <translation>Verifizierung: %1 Versuche erledigt…</translation>
    </message>
    <message>
        <source>Fine-tuning</source>
        <translation>Feinabstimmung</translation>
    </message>
    <message>
        <source>No recommendation for a pretrained model yet.</source>
        <translation>Noch keine Empfehlung für ein vortrainiertes Modell.</translation>
    </message>
    <message>
        <source>Verify needs the planner&apos;s estimate, which does not cover pretrained models yet.</source>
        <translation>Das Verifizieren braucht die Schätzung des Planers, die vortrainierte Modelle noch nicht abdeckt.</translation>
    </message>
    <message>
        <source>The weights alone take %1 in fp32 (%2 in bf16) of the %3 budget; training adds gradients, optimizer state and activations.</source>
        <translation>Allein die Gewichte belegen %1 in fp32 (%2 in bf16) des Budgets von %3; das Training braucht zusätzlich Gradienten, Optimiererzustand und Aktivierungen.</translation>
    </message>
    <message>
        <source>The memory planner does not estimate pretrained models yet.</source>
        <translation>Der Speicherplaner schätzt vortrainierte Modelle noch nicht ab.</translation>
    </message>
    <message>
        <source>The memory planner cannot estimate this model: %1</source>
        <translation>Der Speicherplaner kann dieses Modell nicht abschätzen: %1</translation>
    </message>
    <message>
        <source>&amp;Techniques</source>
        <translation>&amp;Techniken</translation>
    </message>
    <message>
        <source>Compare p&amp;lans</source>
        <translation>P&amp;läne vergleichen</translation>
    </message>
    <message>
        <source>Model c&amp;hanges</source>
        <translation>Modelländerungen (&amp;h)</translation>
    </message>
    <message>
        <source>Cannot use that plan: %1</source>
        <translation>Dieser Plan ist nicht verwendbar: %1</translation>
    </message>
</context>
<context>
    <name>headroom::ui::ModelSizePage</name>
    <message>
        <source>Model size</source>
        <translation>Modellgröße</translation>
    </message>
    <message>
        <source>Pick a preset or say how many parameters the model should have.</source>
        <translation>Wählen Sie eine Vorgabe oder geben Sie an, wie viele Parameter das Modell haben soll.</translation>
    </message>
    <message>
        <source>Model size preset</source>
        <translation>Vorgabe für die Modellgröße</translation>
    </message>
    <message>
        <source>Target parameters in millions</source>
        <translation>Zielparameter in Millionen</translation>
    </message>
    <message>
        <source> million</source>
        <translation> Millionen</translation>
    </message>
    <message>
        <source>Context length in tokens</source>
        <translation>Kontextlänge in Tokens</translation>
    </message>
    <message>
        <source> tokens</source>
        <translation> Tokens</translation>
    </message>
    <message>
        <source>Hidden layer widths</source>
        <translation>Breiten der verborgenen Schichten</translation>
    </message>
    <message>
        <source>e.g. 128,64</source>
        <translation>z. B. 128,64</translation>
    </message>
    <message>
        <source>&amp;Size:</source>
        <translation>&amp;Größe:</translation>
    </message>
    <message>
        <source>&amp;Target parameters:</source>
        <translation>Ziel&amp;parameter:</translation>
    </message>
    <message>
        <source>&amp;Context length:</source>
        <translation>&amp;Kontextlänge:</translation>
    </message>
    <message>
        <source>&amp;Hidden widths:</source>
        <translation>&amp;Verborgene Breiten:</translation>
    </message>
    <message>
        <source>Tiny</source>
        <translation>Winzig</translation>
    </message>
    <message>
        <source>Small</source>
        <translation>Klein</translation>
    </message>
    <message>
        <source>Medium</source>
        <translation>Mittel</translation>
    </message>
    <message>
        <source>Large</source>
        <translation>Groß</translation>
    </message>
    <message>
        <source>%1: %2 layers, %3 heads, width %4</source>
        <translation>%1: %2 Schichten, %3 Köpfe, Breite %4</translation>
    </message>
    <message>
        <source>Target parameter count</source>
        <translation>Zielanzahl der Parameter</translation>
    </message>
    <message>
        <source>Deep</source>
        <translation>Tief</translation>
    </message>
    <message>
        <source>%1: hidden widths %2</source>
        <translation>%1: verborgene Breiten %2</translation>
    </message>
    <message>
        <source>Custom hidden widths</source>
        <translation>Eigene verborgene Breiten</translation>
    </message>
    <message>
        <source>Go back and choose a data file first.</source>
        <translation>Gehen Sie zurück und wählen Sie zuerst eine Datendatei.</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1 parameters&lt;/b&gt;&lt;br&gt;%2</source>
        <translation>&lt;b&gt;%1 Parameter&lt;/b&gt;&lt;br&gt;%2</translation>
    </message>
    <message>
        <source>The pretrained model&apos;s size is given; choose how many tokens each training example holds.</source>
        <translation>Die Größe des vortrainierten Modells steht fest; wählen Sie, wie viele Token jedes Trainingsbeispiel enthält.</translation>
    </message>
    <message>
        <source>The pretrained encoder&apos;s size is given; choose how many tokens a query or a passage keeps (longer ones are cut).</source>
        <translation>Die Größe des vortrainierten Encoders steht fest; wählen Sie, wie viele Token eine Anfrage oder Passage behält (längere werden gekürzt).</translation>
    </message>
    <message>
        <source>&amp;Mixture of Experts: routed expert MLPs</source>
        <translation>&amp;Mixture of Experts: geroutete Experten-MLPs</translation>
    </message>
    <message>
        <source>Each MoE block replaces its MLP by several experts and a router that sends each token to a few of them: more parameters for the same work per token, and more memory.</source>
        <translation>Jeder MoE-Block ersetzt sein MLP durch mehrere Experten und einen Router, der jedes Token an einige davon schickt: mehr Parameter bei gleicher Arbeit pro Token, und mehr Speicher.</translation>
    </message>
    <message>
        <source>Experts per MoE block</source>
        <translation>Experten pro MoE-Block</translation>
    </message>
    <message>
        <source>Experts each token is routed to</source>
        <translation>Experten, an die jedes Token geht</translation>
    </message>
    <message>
        <source>Capacity factor</source>
        <translation>Kapazitätsfaktor</translation>
    </message>
    <message>
        <source>no limit</source>
        <translation>keine Grenze</translation>
    </message>
    <message>
        <source>Tokens an expert takes per sequence, as a multiple of an even share; tokens over it skip the experts (0: no limit).</source>
        <translation>Tokens, die ein Experte pro Sequenz aufnimmt, als Vielfaches eines gleichen Anteils; Tokens darüber überspringen die Experten (0: keine Grenze).</translation>
    </message>
    <message>
        <source>MoE in every k-th block</source>
        <translation>MoE in jedem k-ten Block</translation>
    </message>
    <message>
        <source>E&amp;xperts:</source>
        <translation>E&amp;xperten:</translation>
    </message>
    <message>
        <source>Experts &amp;per token (top-k):</source>
        <translation>Experten &amp;pro Token (top-k):</translation>
    </message>
    <message>
        <source>MoE in e&amp;very k-th block:</source>
        <translation>MoE in jedem k-ten Block (&amp;v):</translation>
    </message>
    <message>
        <source>Capacit&amp;y factor:</source>
        <translation>Kapazitätsfaktor (&amp;y):</translation>
    </message>
</context>
<context>
    <name>headroom::ui::ObjectiveBox</name>
    <message>
        <source>Objective</source>
        <translation>Ziel</translation>
    </message>
    <message>
        <source>DPO: prefer the chosen completion, against the base</source>
        <translation>DPO: die bevorzugte Antwort vorziehen, gemessen an der Basis</translation>
    </message>
    <message>
        <source>IPO: DPO with a bounded margin</source>
        <translation>IPO: DPO mit begrenztem Abstand</translation>
    </message>
    <message>
        <source>SimPO: length-normalized, no reference model</source>
        <translation>SimPO: längennormiert, ohne Referenzmodell</translation>
    </message>
    <message>
        <source>ORPO: learn and prefer in one, no reference model</source>
        <translation>ORPO: Lernen und Vorziehen in einem, ohne Referenzmodell</translation>
    </message>
    <message>
        <source>train.objective: preference tuning learns from each pair which completion people preferred. DPO and IPO compare with the base model (with LoRA: the base with its adapters switched off, no extra memory).</source>
        <translation>train.objective: Präferenz-Tuning lernt aus jedem Paar, welche Antwort Menschen bevorzugt haben. DPO und IPO vergleichen mit dem Basismodell (mit LoRA: die Basis mit abgeschalteten Adaptern, ohne zusätzlichen Speicher).</translation>
    </message>
    <message>
        <source>KTO: desirable and undesirable completions, against the base</source>
        <translation>KTO: erwünschte und unerwünschte Antworten, gemessen an der Basis</translation>
    </message>
    <message>
        <source>GRPO: sample completions, reinforce the better-rewarded</source>
        <translation>GRPO: Vervollständigungen ziehen, die besser belohnten verstärken</translation>
    </message>
    <message>
        <source>The file holds prompts without completions, for online RL (GRPO) on a pretrained model: choose &quot;Start from a pretrained model&quot;.</source>
        <translation>Die Datei enthält Prompts ohne Vervollständigungen, für Online-RL (GRPO) auf einem vortrainierten Modell: Wählen Sie &quot;Von einem vortrainierten Modell ausgehen&quot;.</translation>
    </message>
    <message>
        <source>The file holds preference data (&quot;chosen&quot; and &quot;rejected&quot;, or a &quot;label&quot;), which tunes a pretrained model: choose &quot;Start from a pretrained model&quot;.</source>
        <translation>Die Datei enthält Präferenzdaten (&quot;chosen&quot; und &quot;rejected&quot; oder ein &quot;label&quot;), mit denen ein vortrainiertes Modell abgestimmt wird: Wählen Sie &quot;Von einem vortrainierten Modell ausgehen&quot;.</translation>
    </message>
</context>
<context>
    <name>headroom::ui::PlanChoiceTable</name>
    <message>
        <source>%1 ms</source>
        <translation>%1 ms</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 s</translation>
    </message>
    <message>
        <source>%1 experts instead of %2</source>
        <translation>%1 Experten statt %2</translation>
    </message>
    <message>
        <source>Top-%1 routing instead of top-%2</source>
        <translation>Top-%1-Routing statt Top-%2</translation>
    </message>
    <message>
        <source>Capacity factor %1 instead of none</source>
        <translation>Kapazitätsfaktor %1 statt keiner Grenze</translation>
    </message>
    <message>
        <source>Capacity factor %1 instead of %2</source>
        <translation>Kapazitätsfaktor %1 statt %2</translation>
    </message>
    <message>
        <source>Experts in every %1 blocks instead of every %2</source>
        <translation>Experten in jedem %1. Block statt in jedem %2.</translation>
    </message>
    <message>
        <source>Techniques</source>
        <translation>Techniken</translation>
    </message>
    <message>
        <source>Batch</source>
        <translation>Batch</translation>
    </message>
    <message>
        <source>Peak</source>
        <translation>Spitze</translation>
    </message>
    <message>
        <source>Speed</source>
        <translation>Tempo</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>Schritt</translation>
    </message>
    <message>
        <source>Fits</source>
        <translation>Passt</translation>
    </message>
    <message>
        <source>Change</source>
        <translation>Änderung</translation>
    </message>
    <message>
        <source>Parameters</source>
        <translation>Parameter</translation>
    </message>
    <message>
        <source>Plans the planner compared</source>
        <translation>Vom Planer verglichene Pläne</translation>
    </message>
    <message>
        <source>Changes to the model and their effect</source>
        <translation>Änderungen am Modell und ihre Wirkung</translation>
    </message>
    <message>
        <source>Speed is relative to fp32 without techniques at the same micro-batch; batch is micro-batch × accumulation. Marked rows: nothing else is both faster and smaller.</source>
        <translation>Tempo relativ zu fp32 ohne Techniken beim selben Mikro-Batch; Batch ist Mikro-Batch × Akkumulation. Markierte Zeilen: nichts anderes ist zugleich schneller und kleiner.</translation>
    </message>
    <message>
        <source>Each change alone, with the plan&apos;s techniques and micro-batch. The planner never changes the model itself.</source>
        <translation>Jede Änderung für sich, mit den Techniken und dem Mikro-Batch des Plans. Der Planer ändert das Modell nie selbst.</translation>
    </message>
    <message>
        <source>Show &amp;every combination</source>
        <translation>&amp;Jede Kombination zeigen</translation>
    </message>
    <message>
        <source>The settings as they are now</source>
        <translation>Die aktuellen Einstellungen</translation>
    </message>
    <message>
        <source>yes</source>
        <translation>ja</translation>
    </message>
    <message>
        <source>no</source>
        <translation>nein</translation>
    </message>
    <message>
        <source>Show &amp;every combination (%1)</source>
        <translation>&amp;Jede Kombination zeigen (%1)</translation>
    </message>
    <message>
        <source>%1 M</source>
        <translation>%1 Mio.</translation>
    </message>
    <message>
        <source>Use this pla&amp;n</source>
        <translation>Diese&amp;n Plan verwenden</translation>
    </message>
    <message>
        <source>Appl&amp;y this change</source>
        <translation>Diese Änderung anwenden (&amp;y)</translation>
    </message>
</context>
<context>
    <name>headroom::ui::PlanView</name>
    <message>
        <source>Memory plan</source>
        <translation>Speicherplan</translation>
    </message>
    <message>
        <source>Setting</source>
        <translation>Einstellung</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>Wert</translation>
    </message>
    <message>
        <source>Meaning</source>
        <translation>Bedeutung</translation>
    </message>
    <message>
        <source>Project settings</source>
        <translation>Projekteinstellungen</translation>
    </message>
    <message>
        <source>Settings (double-click a value to change it)</source>
        <translation>Einstellungen (Doppelklick auf einen Wert ändert ihn)</translation>
    </message>
    <message>
        <source>Default: %1</source>
        <translation>Standard: %1</translation>
    </message>
    <message>
        <source>Saved %1 = %2. New runs use it.</source>
        <translation>%1 = %2 gespeichert. Neue Läufe verwenden es.</translation>
    </message>
    <message>
        <source>Settings are read-only while a run trains.</source>
        <translation>Während ein Lauf trainiert, sind die Einstellungen schreibgeschützt.</translation>
    </message>
    <message>
        <source>Recommended for %1: %2</source>
        <translation>Empfohlen für %1: %2</translation>
    </message>
    <message>
        <source>No memory estimate: %1</source>
        <translation>Keine Speicherschätzung: %1</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>Einstellungen</translation>
    </message>
    <message>
        <source>Compare plans</source>
        <translation>Pläne vergleichen</translation>
    </message>
    <message>
        <source>Model changes</source>
        <translation>Modelländerungen</translation>
    </message>
    <message>
        <source>Saved %1. New runs use it.</source>
        <translation>%1 gespeichert. Neue Läufe verwenden es.</translation>
    </message>
</context>
<context>
    <name>headroom::ui::PreferencesDialog</name>
    <message>
        <source>Preferences</source>
        <translation>Einstellungen</translation>
    </message>
    <message>
        <source>A new language applies after Headroom restarts.</source>
        <translation>Eine neue Sprache gilt nach einem Neustart von Headroom.</translation>
    </message>
    <message>
        <source>&amp;Language:</source>
        <translation>&amp;Sprache:</translation>
    </message>
    <message>
        <source>Colour theme</source>
        <translation>Farbschema</translation>
    </message>
    <message>
        <source>Follow the system</source>
        <translation>Wie das System</translation>
    </message>
    <message>
        <source>Light</source>
        <translation>Hell</translation>
    </message>
    <message>
        <source>Dark</source>
        <translation>Dunkel</translation>
    </message>
    <message>
        <source>&amp;Theme:</source>
        <translation>&amp;Farbschema:</translation>
    </message>
</context>
<context>
    <name>headroom::ui::ProfileTableModel</name>
    <message>
        <source>%1 %</source>
        <translation>%1 %</translation>
    </message>
    <message>
        <source>%1
Allocated on the CPU: %2
Allocated on the GPU: %3</source>
        <translation>%1
Auf der CPU belegt: %2
Auf der GPU belegt: %3</translation>
    </message>
    <message>
        <source>Wall time on the host, including the operators it called</source>
        <translation>Laufzeit auf dem Host, einschließlich der aufgerufenen Operatoren</translation>
    </message>
    <message>
        <source>Wall time on the host, without the operators it called</source>
        <translation>Laufzeit auf dem Host, ohne die aufgerufenen Operatoren</translation>
    </message>
    <message>
        <source>Bytes allocated minus bytes freed while this operator was the innermost one</source>
        <translation>Belegte minus freigegebene Bytes, während dieser Operator der innerste war</translation>
    </message>
    <message>
        <source>Operator</source>
        <translation>Operator</translation>
    </message>
    <message>
        <source>Calls</source>
        <translation>Aufrufe</translation>
    </message>
    <message>
        <source>Total (ms)</source>
        <translation>Gesamt (ms)</translation>
    </message>
    <message>
        <source>Self (ms)</source>
        <translation>Eigen (ms)</translation>
    </message>
    <message>
        <source>Self share</source>
        <translation>Eigenanteil</translation>
    </message>
    <message>
        <source>Self CPU memory</source>
        <translation>Eigener CPU-Speicher</translation>
    </message>
    <message>
        <source>Self GPU memory</source>
        <translation>Eigener GPU-Speicher</translation>
    </message>
</context>
<context>
    <name>headroom::ui::ProfileView</name>
    <message>
        <source>%1 %</source>
        <translation>%1 %</translation>
    </message>
    <message>
        <source>Optimizer steps to record; one warm-up step before them is not recorded</source>
        <translation>Aufzuzeichnende Optimiererschritte; ein Aufwärmschritt davor wird nicht aufgezeichnet</translation>
    </message>
    <message>
        <source>&amp;Profile</source>
        <translation>&amp;Profilieren</translation>
    </message>
    <message>
        <source>Trains a few steps of the project&apos;s settings and measures every operator; no run is recorded</source>
        <translation>Trainiert einige Schritte mit den Einstellungen des Projekts und misst jeden Operator; es wird kein Lauf gespeichert</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>Stopp</translation>
    </message>
    <message>
        <source>Save &amp;Trace…</source>
        <translation>&amp;Trace speichern…</translation>
    </message>
    <message>
        <source>A Chrome trace of the profiled steps, for chrome://tracing or ui.perfetto.dev</source>
        <translation>Ein Chrome-Trace der profilierten Schritte, für chrome://tracing oder ui.perfetto.dev</translation>
    </message>
    <message>
        <source>Steps:</source>
        <translation>Schritte:</translation>
    </message>
    <message>
        <source>Module</source>
        <translation>Modul</translation>
    </message>
    <message>
        <source>Held for backward</source>
        <translation>Für Backward gehalten</translation>
    </message>
    <message>
        <source>Share</source>
        <translation>Anteil</translation>
    </message>
    <message>
        <source>Time (ms)</source>
        <translation>Zeit (ms)</translation>
    </message>
    <message>
        <source>Calls</source>
        <translation>Aufrufe</translation>
    </message>
    <message>
        <source>Bytes allocated inside the module during the largest forward pass and still alive when it ended</source>
        <translation>Bytes, die im Modul während des größten Vorwärtsdurchlaufs belegt wurden und an dessen Ende noch leben</translation>
    </message>
    <message>
        <source>Profile a few training steps of this project&apos;s settings.</source>
        <translation>Profilieren Sie einige Trainingsschritte mit den Einstellungen dieses Projekts.</translation>
    </message>
    <message>
        <source>Open or create a project first.</source>
        <translation>Öffnen oder erstellen Sie zuerst ein Projekt.</translation>
    </message>
    <message>
        <source>A run is training this project: profile it when the run has ended.</source>
        <translation>Ein Lauf trainiert dieses Projekt: Profilieren Sie es, wenn der Lauf beendet ist.</translation>
    </message>
    <message>
        <source>A profile is already running.</source>
        <translation>Es läuft bereits ein Profil.</translation>
    </message>
    <message>
        <source>No profile yet. A profile trains the project&apos;s settings for a few steps (nothing is recorded as a run) and shows where the time and the memory go.</source>
        <translation>Noch kein Profil. Ein Profil trainiert die Einstellungen des Projekts einige Schritte lang (nichts wird als Lauf gespeichert) und zeigt, wohin Zeit und Speicher gehen.</translation>
    </message>
    <message>
        <source>Profiled steps: %1 (after %2 of warm-up) on %3 · %4 ms per step · micro-batch %5 × %6</source>
        <translation>Profilierte Schritte: %1 (nach %2 zum Aufwärmen) auf %3 · %4 ms pro Schritt · Micro-Batch %5 × %6</translation>
    </message>
    <message>
        <source>Held for backward: %1 at the end of the largest forward pass (of %2)</source>
        <translation>Für Backward gehalten: %1 am Ende des größten Vorwärtsdurchlaufs (von %2)</translation>
    </message>
    <message>
        <source> (the trainer measured %1 of activations in its first step)</source>
        <translation> (der Trainer hat in seinem ersten Schritt %1 an Aktivierungen gemessen)</translation>
    </message>
    <message>
        <source>Profile first: there is no trace yet.</source>
        <translation>Zuerst profilieren: Es gibt noch keinen Trace.</translation>
    </message>
    <message>
        <source>Save Trace</source>
        <translation>Trace speichern</translation>
    </message>
    <message>
        <source>Chrome trace (*.json)</source>
        <translation>Chrome-Trace (*.json)</translation>
    </message>
    <message>
        <source>Trace saved to %1: open it in chrome://tracing or ui.perfetto.dev.</source>
        <translation>Trace gespeichert unter %1: Öffnen Sie ihn in chrome://tracing oder ui.perfetto.dev.</translation>
    </message>
</context>
<context>
    <name>headroom::ui::RetrievalTryPanel</name>
    <message>
        <source>Query</source>
        <translation>Anfrage</translation>
    </message>
    <message>
        <source>What a user would search for</source>
        <translation>Wonach ein Nutzer suchen würde</translation>
    </message>
    <message>
        <source>&amp;Query:</source>
        <translation>&amp;Anfrage:</translation>
    </message>
    <message>
        <source>Passages, one per line</source>
        <translation>Passagen, eine pro Zeile</translation>
    </message>
    <message>
        <source>One passage per line: the documents to rank</source>
        <translation>Eine Passage pro Zeile: die zu ordnenden Dokumente</translation>
    </message>
    <message>
        <source>&amp;Passages (one per line):</source>
        <translation>&amp;Passagen (eine pro Zeile):</translation>
    </message>
    <message>
        <source>&amp;Rank</source>
        <translation>&amp;Ordnen</translation>
    </message>
    <message>
        <source>Score every passage against the query (Return in the query)</source>
        <translation>Jede Passage gegen die Anfrage bewerten (Eingabetaste in der Anfrage)</translation>
    </message>
    <message>
        <source>Locate &amp;Base Model…</source>
        <translation>&amp;Basismodell suchen…</translation>
    </message>
    <message>
        <source>#</source>
        <translation>#</translation>
    </message>
    <message>
        <source>Score</source>
        <translation>Punktzahl</translation>
    </message>
    <message>
        <source>Passage</source>
        <translation>Passage</translation>
    </message>
    <message>
        <source>Passages ranked by score</source>
        <translation>Passagen nach Punktzahl geordnet</translation>
    </message>
    <message>
        <source>Term</source>
        <translation>Begriff</translation>
    </message>
    <message>
        <source>Contribution</source>
        <translation>Beitrag</translation>
    </message>
    <message>
        <source>Terms the passage shares with the query</source>
        <translation>Begriffe, die die Passage mit der Anfrage teilt</translation>
    </message>
    <message>
        <source>Query weight × passage weight of each term both have; they add up to the score</source>
        <translation>Anfragegewicht × Passagengewicht jedes gemeinsamen Begriffs; zusammen ergeben sie die Punktzahl</translation>
    </message>
    <message>
        <source>Weight</source>
        <translation>Gewicht</translation>
    </message>
    <message>
        <source>The query&apos;s top terms</source>
        <translation>Die wichtigsten Begriffe der Anfrage</translation>
    </message>
    <message>
        <source>The largest weights of the query&apos;s sparse vector: the vocabulary terms it expands to</source>
        <translation>Die größten Gewichte des dünnbesetzten Anfragevektors: die Vokabularbegriffe, zu denen sie erweitert wird</translation>
    </message>
    <message>
        <source>Ranking:</source>
        <translation>Rangfolge:</translation>
    </message>
    <message>
        <source>Shared terms:</source>
        <translation>Gemeinsame Begriffe:</translation>
    </message>
    <message>
        <source>Query terms:</source>
        <translation>Begriffe der Anfrage:</translation>
    </message>
    <message>
        <source>A ranking is already running.</source>
        <translation>Es läuft bereits eine Rangfolge.</translation>
    </message>
    <message>
        <source>Choose the weights to rank with first.</source>
        <translation>Wählen Sie zuerst die Gewichte für die Rangfolge.</translation>
    </message>
    <message>
        <source>Type a query first: the passages are ranked against it.</source>
        <translation>Geben Sie zuerst eine Anfrage ein: Die Passagen werden danach geordnet.</translation>
    </message>
    <message>
        <source>Add at least one passage to rank, one per line.</source>
        <translation>Fügen Sie mindestens eine Passage zum Ordnen hinzu, eine pro Zeile.</translation>
    </message>
    <message numerus="yes">
        <source>Loading the base model and ranking %n passages…</source>
        <translation>
            <numerusform>Lade das Basismodell und ordne %n Passage…</numerusform>
            <numerusform>Lade das Basismodell und ordne %n Passagen…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Loading the weights of run %1 and ranking %n passages…</source>
        <translation>
            <numerusform>Lade die Gewichte von Lauf %1 und ordne %n Passage…</numerusform>
            <numerusform>Lade die Gewichte von Lauf %1 und ordne %n Passagen…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Ranked %n passages with the base model as imported.</source>
        <translation>
            <numerusform>%n Passage mit dem importierten Basismodell geordnet.</numerusform>
            <numerusform>%n Passagen mit dem importierten Basismodell geordnet.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Ranked %n passages with run %1 at step %2.</source>
        <translation>
            <numerusform>%n Passage mit Lauf %1 bei Schritt %2 geordnet.</numerusform>
            <numerusform>%n Passagen mit Lauf %1 bei Schritt %2 geordnet.</numerusform>
        </translation>
    </message>
    <message>
        <source>Passage ranked %1 shares no term with the query.</source>
        <translation>Die Passage auf Rang %1 teilt keinen Begriff mit der Anfrage.</translation>
    </message>
    <message>
        <source>Terms passage ranked %1 shares with the query (the largest %2: %3 % of its score):</source>
        <translation>Begriffe, die die Passage auf Rang %1 mit der Anfrage teilt (die größten %2: %3 % ihrer Punktzahl):</translation>
    </message>
    <message>
        <source>Terms passage ranked %1 shares with the query:</source>
        <translation>Begriffe, die die Passage auf Rang %1 mit der Anfrage teilt:</translation>
    </message>
</context>
<context>
    <name>headroom::ui::ReviewPage</name>
    <message>
        <source>Review and save</source>
        <translation>Prüfen und speichern</translation>
    </message>
    <message>
        <source>These settings go into the project file. You can change them later on the Plan tab.</source>
        <translation>Diese Einstellungen werden in der Projektdatei gespeichert. Sie können sie später auf der Registerkarte „Plan“ ändern.</translation>
    </message>
    <message>
        <source>Project settings</source>
        <translation>Projekteinstellungen</translation>
    </message>
    <message>
        <source>Project file</source>
        <translation>Projektdatei</translation>
    </message>
    <message>
        <source>Where to save the project (.headroom)</source>
        <translation>Wo das Projekt gespeichert wird (.headroom)</translation>
    </message>
    <message>
        <source>B&amp;rowse…</source>
        <translation>Durch&amp;suchen…</translation>
    </message>
    <message>
        <source>Choose where to save the project</source>
        <translation>Speicherort des Projekts wählen</translation>
    </message>
    <message>
        <source>&amp;Project file:</source>
        <translation>&amp;Projektdatei:</translation>
    </message>
    <message>
        <source>&amp;Settings:</source>
        <translation>&amp;Einstellungen:</translation>
    </message>
    <message>
        <source>Save Project As</source>
        <translation>Projekt speichern unter</translation>
    </message>
    <message>
        <source>Headroom projects (*.headroom)</source>
        <translation>Headroom-Projekte (*.headroom)</translation>
    </message>
    <message>
        <source>Checking the data file and creating the project…</source>
        <translation>Datendatei wird geprüft und das Projekt angelegt…</translation>
    </message>
    <message>
        <source>Checking the base model and the data file, creating the project…</source>
        <translation>Basismodell und Datendatei werden geprüft, das Projekt wird angelegt…</translation>
    </message>
    <message>
        <source>What it is: %1</source>
        <translation>Was es ist: %1</translation>
    </message>
    <message>
        <source>a pretrained masked language model fine-tuned as a SPLADE retrieval encoder (%1)</source>
        <translation>ein vortrainiertes maskiertes Sprachmodell, angepasst als SPLADE-Retrieval-Encoder (%1)</translation>
    </message>
    <message>
        <source>a pretrained causal language model, fine-tuned (%1)</source>
        <translation>ein vortrainiertes kausales Sprachmodell, feinabgestimmt (%1)</translation>
    </message>
    <message>
        <source>a new GPT language model, trained from scratch</source>
        <translation>ein neues GPT-Sprachmodell, von Grund auf trainiert</translation>
    </message>
    <message>
        <source>a new tabular model, trained from scratch</source>
        <translation>ein neues Tabellenmodell, von Grund auf trainiert</translation>
    </message>
    <message>
        <source>a pretrained causal language model, tuned on preference pairs with %1 (%2)</source>
        <translation>ein vortrainiertes kausales Sprachmodell, mit %1 auf Präferenzpaaren abgestimmt (%2)</translation>
    </message>
    <message>
        <source>a pretrained causal language model, trained with GRPO on its own sampled completions and their rewards (%1)</source>
        <translation>ein vortrainiertes kausales Sprachmodell, mit GRPO auf seinen eigenen gezogenen Vervollständigungen und deren Belohnungen trainiert (%1)</translation>
    </message>
</context>
<context>
    <name>headroom::ui::RewardField</name>
    <message>
        <source>Reward</source>
        <translation>Belohnung</translation>
    </message>
    <message>
        <source>e.g. exact:answer,regex:&lt;/think&gt;*0.2</source>
        <translation>z. B. exact:answer,regex:&lt;/think&gt;*0.2</translation>
    </message>
    <message>
        <source>grpo.reward: what a sampled completion earns, terms separated by commas, each KIND:ARGUMENT*WEIGHT. regex:PATTERN 1 when found; format:PATTERN 1 when the whole completion matches; exact:FIELD 1 when its final number equals the record&apos;s FIELD; length:N 1 at N tokens; command:CMD a program reading JSON lines, printing one reward per line.</source>
        <translation>grpo.reward: was eine gezogene Vervollständigung erhält, Terme durch Kommas getrennt, jeder ART:ARGUMENT*GEWICHT. regex:MUSTER 1, wenn gefunden; format:MUSTER 1, wenn die ganze Vervollständigung passt; exact:FELD 1, wenn ihre letzte Zahl dem FELD des Datensatzes gleicht; length:N 1 bei N Tokens; command:CMD ein Programm, das JSON-Zeilen liest und je Zeile eine Belohnung ausgibt.</translation>
    </message>
    <message>
        <source>Each prompt gets a group of sampled completions; the better-rewarded ones in its group are reinforced.</source>
        <translation>Jeder Prompt erhält eine Gruppe gezogener Vervollständigungen; die besser belohnten seiner Gruppe werden verstärkt.</translation>
    </message>
    <message>
        <source>&amp;Reward:</source>
        <translation>&amp;Belohnung:</translation>
    </message>
</context>
<context>
    <name>headroom::ui::RunsPanel</name>
    <message>
        <source>running</source>
        <translation>läuft</translation>
    </message>
    <message>
        <source>paused</source>
        <translation>pausiert</translation>
    </message>
    <message>
        <source>finished</source>
        <translation>fertig</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>angehalten</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>fehlgeschlagen</translation>
    </message>
    <message>
        <source>interrupted</source>
        <translation>unterbrochen</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>Lauf</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>Status</translation>
    </message>
    <message>
        <source>Steps</source>
        <translation>Schritte</translation>
    </message>
    <message>
        <source>Loss</source>
        <translation>Verlust</translation>
    </message>
    <message>
        <source>Val. loss</source>
        <translation>Val.-Verlust</translation>
    </message>
    <message>
        <source>Peak memory</source>
        <translation>Spitzenspeicher</translation>
    </message>
    <message>
        <source>OOM recoveries</source>
        <translation>OOM-Erholungen</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>Gerät</translation>
    </message>
    <message>
        <source>Runs</source>
        <translation>Läufe</translation>
    </message>
    <message>
        <source>recipe %1 · data %2</source>
        <translation>Rezept %1 · Daten %2</translation>
    </message>
    <message>
        <source>Started %1</source>
        <translation>Gestartet %1</translation>
    </message>
    <message>
        <source>No runs yet. Press Start (F5), or train from a terminal with
headroom-cli train &quot;%1&quot;</source>
        <translation>Noch keine Läufe. Drücken Sie Start (F5) oder trainieren Sie im Terminal mit
headroom-cli train &quot;%1&quot;</translation>
    </message>
    <message>
        <source>Techniques</source>
        <translation>Techniken</translation>
    </message>
    <message>
        <source>accuracy %1 %</source>
        <translation>Genauigkeit %1 %</translation>
    </message>
    <message>
        <source>RMSE %1</source>
        <translation>RMSE %1</translation>
    </message>
    <message>
        <source> · R² %1</source>
        <translation> · R² %1</translation>
    </message>
    <message>
        <source> (best: step %1)</source>
        <translation> (bester: Schritt %1)</translation>
    </message>
    <message>
        <source>Validation</source>
        <translation>Validierung</translation>
    </message>
    <message>
        <source>pretrained %1 · data %2</source>
        <translation>vortrainiert %1 · Daten %2</translation>
    </message>
    <message>
        <source>MRR@10 %1 · Recall@100 %2</source>
        <translation>MRR@10 %1 · Recall@100 %2</translation>
    </message>
    <message>
        <source>pretrained %1 · %2 on preference pairs · data %3</source>
        <translation>vortrainiert %1 · %2 auf Präferenzpaaren · Daten %3</translation>
    </message>
    <message>
        <source>reward accuracy %1 %</source>
        <translation>Belohnungsgenauigkeit %1 %</translation>
    </message>
    <message>
        <source>mean reward %1</source>
        <translation>mittlere Belohnung %1</translation>
    </message>
    <message>
        <source>pretrained %1 · GRPO on sampled completions · data %2</source>
        <translation>vortrainiert %1 · GRPO auf gezogenen Vervollständigungen · Daten %2</translation>
    </message>
</context>
<context>
    <name>headroom::ui::SessionController</name>
    <message>
        <source>Starting…</source>
        <translation>Wird gestartet…</translation>
    </message>
</context>
<context>
    <name>headroom::ui::ShardSizeDialog</name>
    <message>
        <source>Export as Hugging Face Folder</source>
        <translation>Als Hugging-Face-Ordner exportieren</translation>
    </message>
    <message>
        <source>Weights larger than this are split into several files with an index, as save_pretrained splits them</source>
        <translation>Gewichte, die größer sind, werden wie bei save_pretrained in mehrere Dateien mit einem Index aufgeteilt</translation>
    </message>
    <message>
        <source>Bytes or a number with a unit: 500MB, 5GB, 2GiB (GB = 10⁹ bytes, GiB = 2³⁰ bytes). 5GB is what Transformers uses.</source>
        <translation>Bytes oder eine Zahl mit Einheit: 500MB, 5GB, 2GiB (GB = 10⁹ Bytes, GiB = 2³⁰ Bytes). Transformers verwendet 5GB.</translation>
    </message>
    <message>
        <source>&amp;Largest weight file:</source>
        <translation>&amp;Größte Gewichtsdatei:</translation>
    </message>
    <message>
        <source>&amp;Export</source>
        <translation>&amp;Exportieren</translation>
    </message>
    <message>
        <source>“%1” is not a size above zero: give bytes or a number with a unit (500MB, 5GB, 2GiB).</source>
        <translation>„%1“ ist keine Größe über null: Geben Sie Bytes oder eine Zahl mit Einheit an (500MB, 5GB, 2GiB).</translation>
    </message>
</context>
<context>
    <name>headroom::ui::TokenChips</name>
    <message>
        <source>id %1 · piece “%2”</source>
        <translation>ID %1 · Vokabeleintrag „%2“</translation>
    </message>
    <message>
        <source>special token</source>
        <translation>Sondertoken</translation>
    </message>
    <message>
        <source>prompt (not learned)</source>
        <translation>Prompt (wird nicht gelernt)</translation>
    </message>
</context>
<context>
    <name>headroom::ui::TokenPreviewPanel</name>
    <message>
        <source>Tokens of a sample:</source>
        <translation>Tokens eines Beispiels:</translation>
    </message>
    <message>
        <source>Previous sample</source>
        <translation>Vorheriges Beispiel</translation>
    </message>
    <message>
        <source>Next sample</source>
        <translation>Nächstes Beispiel</translation>
    </message>
    <message>
        <source>Tokens of the sample</source>
        <translation>Tokens des Beispiels</translation>
    </message>
    <message>
        <source>No line of the file holds text to tokenize.</source>
        <translation>Keine Zeile der Datei enthält Text zum Tokenisieren.</translation>
    </message>
    <message numerus="yes">
        <source>line %1 · %n tokens</source>
        <translation>
            <numerusform>Zeile %1 · %n Token</numerusform>
            <numerusform>Zeile %1 · %n Tokens</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source> (%n in the prompt)</source>
        <translation>
            <numerusform> (%n im Prompt)</numerusform>
            <numerusform> (%n im Prompt)</numerusform>
        </translation>
    </message>
    <message>
        <source>, the first %1 shown</source>
        <translation>, die ersten %1 gezeigt</translation>
    </message>
    <message numerus="yes">
        <source>%n records read</source>
        <translation>
            <numerusform>%n Datensatz gelesen</numerusform>
            <numerusform>%n Datensätze gelesen</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n lines read</source>
        <translation>
            <numerusform>%n Zeile gelesen</numerusform>
            <numerusform>%n Zeilen gelesen</numerusform>
        </translation>
    </message>
    <message>
        <source> (the whole file)</source>
        <translation> (die ganze Datei)</translation>
    </message>
    <message>
        <source> (the first %1)</source>
        <translation> (die ersten %1)</translation>
    </message>
    <message>
        <source>tokens per record: mean %1 · median %2 · p95 %3 · max %4</source>
        <translation>Tokens pro Datensatz: Mittel %1 · Median %2 · p95 %3 · Max. %4</translation>
    </message>
    <message>
        <source>tokens per line: mean %1 · median %2 · p95 %3 · max %4</source>
        <translation>Tokens pro Zeile: Mittel %1 · Median %2 · p95 %3 · Max. %4</translation>
    </message>
    <message>
        <source>%1 characters per token</source>
        <translation>%1 Zeichen pro Token</translation>
    </message>
    <message>
        <source>All fit the context of %1 tokens (model.seq_len).</source>
        <translation>Alle passen in den Kontext von %1 Tokens (model.seq_len).</translation>
    </message>
    <message numerus="yes">
        <source>%n records longer than the context of %1 tokens (model.seq_len): training cuts them there.</source>
        <translation>
            <numerusform>%n Datensatz länger als der Kontext von %1 Tokens (model.seq_len): das Training schneidet ihn dort ab.</numerusform>
            <numerusform>%n Datensätze länger als der Kontext von %1 Tokens (model.seq_len): das Training schneidet sie dort ab.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n lines longer than the context of %1 tokens (model.seq_len): training splits them over several windows.</source>
        <translation>
            <numerusform>%n Zeile länger als der Kontext von %1 Tokens (model.seq_len): das Training verteilt sie auf mehrere Fenster.</numerusform>
            <numerusform>%n Zeilen länger als der Kontext von %1 Tokens (model.seq_len): das Training verteilt sie auf mehrere Fenster.</numerusform>
        </translation>
    </message>
    <message>
        <source>The %1 tokenizer was trained on these lines for the preview; the project trains it on the whole file.</source>
        <translation>Der %1-Tokenizer wurde für die Vorschau auf diesen Zeilen trainiert; das Projekt trainiert ihn auf der ganzen Datei.</translation>
    </message>
    <message>
        <source>Padding: %1 of the tokens computed with one record per row (each batch padded to its longest), %2 with the records packed side by side.</source>
        <translation>Auffüllung: %1 der berechneten Token mit einem Datensatz je Zeile (jeder Batch auf seinen längsten aufgefüllt), %2 mit nebeneinander gepackten Datensätzen.</translation>
    </message>
    <message>
        <source> · rejected completion</source>
        <translation> · abgelehnte Antwort</translation>
    </message>
    <message>
        <source> · chosen completion</source>
        <translation> · bevorzugte Antwort</translation>
    </message>
    <message numerus="yes">
        <source>%n preference pairs read</source>
        <translation>
            <numerusform>%n Präferenzpaar gelesen</numerusform>
            <numerusform>%n Präferenzpaare gelesen</numerusform>
        </translation>
    </message>
    <message>
        <source>tokens per sequence (prompt and chosen or rejected completion): mean %1 · median %2 · p95 %3 · max %4</source>
        <translation>Tokens pro Sequenz (Prompt und bevorzugte oder abgelehnte Antwort): Mittel %1 · Median %2 · p95 %3 · Max. %4</translation>
    </message>
    <message numerus="yes">
        <source>%n sequences longer than the context of %1 tokens (model.seq_len): training cuts their completions there.</source>
        <translation>
            <numerusform>%n Sequenz länger als der Kontext von %1 Tokens (model.seq_len): das Training schneidet ihre Antwort dort ab.</numerusform>
            <numerusform>%n Sequenzen länger als der Kontext von %1 Tokens (model.seq_len): das Training schneidet ihre Antworten dort ab.</numerusform>
        </translation>
    </message>
    <message>
        <source>Padding: %1 of the tokens computed, each sequence a row padded to the longest of its batch (pairs are not packed).</source>
        <translation>Auffüllung: %1 der berechneten Token, jede Sequenz eine Zeile, aufgefüllt auf die längste ihres Batches (Paare werden nicht gepackt).</translation>
    </message>
</context>
<context>
    <name>headroom::ui::TryView</name>
    <message>
        <source>&amp;Weights:</source>
        <translation>&amp;Gewichte:</translation>
    </message>
    <message>
        <source>Prompt</source>
        <translation>Prompt</translation>
    </message>
    <message>
        <source>The text the model continues</source>
        <translation>Der Text, den das Modell fortsetzt</translation>
    </message>
    <message>
        <source>Pro&amp;mpt:</source>
        <translation>Pro&amp;mpt:</translation>
    </message>
    <message>
        <source>model default</source>
        <translation>Modellvorgabe</translation>
    </message>
    <message>
        <source>Model default: the model folder&apos;s generation_config.json (greedy decoding when it does not sample)</source>
        <translation>Modellvorgabe: die generation_config.json des Modellordners (gierige Dekodierung, wenn sie kein Sampling vorsieht)</translation>
    </message>
    <message>
        <source>Maximum new tokens</source>
        <translation>Höchstzahl neuer Token</translation>
    </message>
    <message>
        <source>Temperature</source>
        <translation>Temperatur</translation>
    </message>
    <message>
        <source>0 = greedy decoding</source>
        <translation>0 = gierige Dekodierung</translation>
    </message>
    <message>
        <source>Top-k</source>
        <translation>Top-k</translation>
    </message>
    <message>
        <source>0 = off</source>
        <translation>0 = aus</translation>
    </message>
    <message>
        <source>Top-p</source>
        <translation>Top-p</translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>Startwert</translation>
    </message>
    <message>
        <source>Ge&amp;nerate</source>
        <translation>E&amp;rzeugen</translation>
    </message>
    <message>
        <source>Continue the prompt (Ctrl+Return in the prompt)</source>
        <translation>Den Prompt fortsetzen (Strg+Eingabe im Prompt)</translation>
    </message>
    <message>
        <source>St&amp;op</source>
        <translation>St&amp;opp</translation>
    </message>
    <message>
        <source>Stop after the current token</source>
        <translation>Nach dem aktuellen Token anhalten</translation>
    </message>
    <message>
        <source>Ma&amp;x. new tokens:</source>
        <translation>Ma&amp;x. neue Token:</translation>
    </message>
    <message>
        <source>T&amp;emperature:</source>
        <translation>T&amp;emperatur:</translation>
    </message>
    <message>
        <source>Top-&amp;k:</source>
        <translation>Top-&amp;k:</translation>
    </message>
    <message>
        <source>See&amp;d:</source>
        <translation>&amp;Startwert:</translation>
    </message>
    <message>
        <source>Top-p:</source>
        <translation>Top-p:</translation>
    </message>
    <message>
        <source>Generated text</source>
        <translation>Erzeugter Text</translation>
    </message>
    <message>
        <source>The prompt and its continuation appear here.</source>
        <translation>Hier erscheinen der Prompt und seine Fortsetzung.</translation>
    </message>
    <message>
        <source>Output:</source>
        <translation>Ausgabe:</translation>
    </message>
    <message>
        <source>Open a project to try its model.</source>
        <translation>Öffnen Sie ein Projekt, um sein Modell auszuprobieren.</translation>
    </message>
    <message>
        <source>Run %1 · step %2 · %3</source>
        <translation>Lauf %1 · Schritt %2 · %3</translation>
    </message>
    <message>
        <source>Base model as imported (%1)</source>
        <translation>Basismodell wie importiert (%1)</translation>
    </message>
    <message>
        <source>Only language models generate text: this project trains a tabular model.</source>
        <translation>Nur Sprachmodelle erzeugen Text: Dieses Projekt trainiert ein tabellarisches Modell.</translation>
    </message>
    <message>
        <source>No run has a checkpoint yet: train a run (F5), then try its weights here.</source>
        <translation>Noch kein Lauf hat einen Checkpoint: Trainieren Sie einen Lauf (F5) und probieren Sie dann hier seine Gewichte aus.</translation>
    </message>
    <message>
        <source>A generation is already running.</source>
        <translation>Es läuft bereits eine Textgenerierung.</translation>
    </message>
    <message>
        <source>Type a prompt first: the model continues it.</source>
        <translation>Geben Sie zuerst einen Prompt ein: Das Modell setzt ihn fort.</translation>
    </message>
    <message>
        <source>Loading the base model…</source>
        <translation>Das Basismodell wird geladen…</translation>
    </message>
    <message>
        <source>Loading the weights of run %1…</source>
        <translation>Die Gewichte von Lauf %1 werden geladen…</translation>
    </message>
    <message>
        <source>Stopping…</source>
        <translation>Wird angehalten…</translation>
    </message>
    <message>
        <source>Generating with the base model…</source>
        <translation>Text wird mit dem Basismodell erzeugt…</translation>
    </message>
    <message>
        <source>Generating with run %1…</source>
        <translation>Text wird mit Lauf %1 erzeugt…</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>angehalten</translation>
    </message>
    <message>
        <source>ended at an end-of-text token</source>
        <translation>beim Textende-Token beendet</translation>
    </message>
    <message>
        <source>reached the token limit</source>
        <translation>Token-Grenze erreicht</translation>
    </message>
    <message>
        <source>%1 new tokens in %2 s (%3 tokens/s); %4.</source>
        <translation>%1 neue Token in %2 s (%3 Token/s); %4.</translation>
    </message>
    <message>
        <source>Locate &amp;Base Model…</source>
        <translation>&amp;Basismodell suchen…</translation>
    </message>
    <message>
        <source>Weights to try</source>
        <translation>Zu testende Gewichte</translation>
    </message>
    <message>
        <source>Continue a text or chat</source>
        <translation>Einen Text fortsetzen oder chatten</translation>
    </message>
    <message>
        <source>Continue text</source>
        <translation>Text fortsetzen</translation>
    </message>
    <message>
        <source>Chat</source>
        <translation>Chat</translation>
    </message>
    <message>
        <source>Chat renders the conversation with the project&apos;s chat template (data.chat_template, else the base model&apos;s)</source>
        <translation>Chat rendert die Unterhaltung mit der Chat-Vorlage des Projekts (data.chat_template, sonst der des Basismodells)</translation>
    </message>
    <message>
        <source>Try a&amp;s:</source>
        <translation>Ausprobieren &amp;als:</translation>
    </message>
</context>
<context>
    <name>headroom::ui::plots::ExpertLoadPlot</name>
    <message>
        <source>Expert Load</source>
        <translation>Expertenauslastung</translation>
    </message>
    <message>
        <source>step</source>
        <translation>Schritt</translation>
    </message>
    <message>
        <source>MoE block</source>
        <translation>MoE-Block</translation>
    </message>
    <message>
        <source>expert load</source>
        <translation>Expertenauslastung</translation>
    </message>
    <message>
        <source>share of assignments</source>
        <translation>Anteil der Zuweisungen</translation>
    </message>
    <message>
        <source>block %1</source>
        <translation>Block %1</translation>
    </message>
    <message>
        <source>MoE block, %1 experts each</source>
        <translation>MoE-Block, je %1 Experten</translation>
    </message>
    <message>
        <source>Step %1, block %2, expert %3: %4% of the assignments (balanced: %5%)</source>
        <translation>Schritt %1, Block %2, Experte %3: %4 % der Zuweisungen (ausgeglichen: %5 %)</translation>
    </message>
</context>
<context>
    <name>headroom::ui::plots::GrpoPlot</name>
    <message>
        <source>Rewards</source>
        <translation>Belohnungen</translation>
    </message>
    <message>
        <source>step</source>
        <translation>Schritt</translation>
    </message>
    <message>
        <source>reward</source>
        <translation>Belohnung</translation>
    </message>
    <message>
        <source>completion length (tokens)</source>
        <translation>Länge der Vervollständigung (Tokens)</translation>
    </message>
    <message>
        <source>mean reward</source>
        <translation>mittlere Belohnung</translation>
    </message>
    <message>
        <source>reward spread in groups</source>
        <translation>Streuung der Belohnung in Gruppen</translation>
    </message>
    <message>
        <source>completion length</source>
        <translation>Länge der Vervollständigung</translation>
    </message>
</context>
<context>
    <name>headroom::ui::plots::LossPlot</name>
    <message>
        <source>Loss</source>
        <translation>Verlust</translation>
    </message>
    <message>
        <source>step</source>
        <translation>Schritt</translation>
    </message>
    <message>
        <source>loss</source>
        <translation>Verlust</translation>
    </message>
    <message>
        <source>training</source>
        <translation>Training</translation>
    </message>
    <message>
        <source>training (smoothed)</source>
        <translation>Training (geglättet)</translation>
    </message>
    <message>
        <source>validation</source>
        <translation>Validierung</translation>
    </message>
</context>
<context>
    <name>headroom::ui::plots::MemoryPlot</name>
    <message>
        <source>Out-of-memory recovery at step %1: micro-batch %2 → %3, accumulation %4</source>
        <translation>Erholung von Speichermangel bei Schritt %1: Micro-Batch %2 → %3, Akkumulation %4</translation>
    </message>
    <message>
        <source>Memory ladder at step %1</source>
        <translation>Speicherleiter bei Schritt %1</translation>
    </message>
    <message>
        <source>Validation backed off at step %1</source>
        <translation>Validierung bei Schritt %1 zurückgestuft</translation>
    </message>
    <message>
        <source>Memory keeps growing (step %1)</source>
        <translation>Speicher wächst weiter (Schritt %1)</translation>
    </message>
    <message>
        <source>Out of memory at step %1: the run paused</source>
        <translation>Speicher erschöpft bei Schritt %1: der Lauf pausiert</translation>
    </message>
    <message>
        <source>Live at failure: %1</source>
        <translation>Belegt beim Fehler: %1</translation>
    </message>
    <message>
        <source>Device: %1</source>
        <translation>Gerät: %1</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>Speicher</translation>
    </message>
    <message>
        <source>step</source>
        <translation>Schritt</translation>
    </message>
    <message>
        <source>MiB</source>
        <translation>MiB</translation>
    </message>
    <message>
        <source>live after step</source>
        <translation>belegt nach Schritt</translation>
    </message>
    <message>
        <source>peak during step</source>
        <translation>Spitze im Schritt</translation>
    </message>
    <message>
        <source>out-of-memory recovery</source>
        <translation>Erholung von Speichermangel</translation>
    </message>
    <message>
        <source>back-off or ladder rung</source>
        <translation>Rückstufung oder Leiterstufe</translation>
    </message>
    <message>
        <source>warning</source>
        <translation>Warnung</translation>
    </message>
    <message>
        <source>budget %1</source>
        <translation>Budget %1</translation>
    </message>
    <message>
        <source>reserved by the allocator</source>
        <translation>vom Allokator reserviert</translation>
    </message>
    <message>
        <source>Out of memory on %1 at step %2: the run moved to the CPU</source>
        <translation>Kein Speicher mehr auf %1 bei Schritt %2: Der Lauf wurde auf die CPU verlegt</translation>
    </message>
    <message>
        <source>↑ budget %1, above this scale</source>
        <translation>↑ Budget %1, oberhalb dieser Skala</translation>
    </message>
</context>
<context>
    <name>headroom::ui::plots::PreferencePlot</name>
    <message>
        <source>Rewards</source>
        <translation>Belohnungen</translation>
    </message>
    <message>
        <source>step</source>
        <translation>Schritt</translation>
    </message>
    <message>
        <source>reward</source>
        <translation>Belohnung</translation>
    </message>
    <message>
        <source>pairs ranked right</source>
        <translation>richtig gereihte Paare</translation>
    </message>
    <message>
        <source>chosen reward</source>
        <translation>Belohnung bevorzugt</translation>
    </message>
    <message>
        <source>rejected reward</source>
        <translation>Belohnung abgelehnt</translation>
    </message>
    <message>
        <source>reward margin</source>
        <translation>Belohnungsabstand</translation>
    </message>
    <message>
        <source>reward accuracy</source>
        <translation>Belohnungsgenauigkeit</translation>
    </message>
</context>
<context>
    <name>headroom::ui::plots::RankPlot</name>
    <message>
        <source>Ranks</source>
        <translation>Ränge</translation>
    </message>
    <message>
        <source>step</source>
        <translation>Schritt</translation>
    </message>
    <message>
        <source>peak memory (MiB)</source>
        <translation>Spitzenspeicher (MiB)</translation>
    </message>
    <message>
        <source>rank %1 memory</source>
        <translation>Rang %1 Speicher</translation>
    </message>
    <message>
        <source>rank %1 samples/s</source>
        <translation>Rang %1 Beispiele/s</translation>
    </message>
    <message>
        <source>samples/s</source>
        <translation>Beispiele/s</translation>
    </message>
</context>
<context>
    <name>headroom::ui::plots::RetrievalQualityPlot</name>
    <message>
        <source>Retrieval quality</source>
        <translation>Suchqualität</translation>
    </message>
    <message>
        <source>step</source>
        <translation>Schritt</translation>
    </message>
    <message>
        <source>validation score</source>
        <translation>Validierungswert</translation>
    </message>
    <message>
        <source>MRR@10</source>
        <translation>MRR@10</translation>
    </message>
    <message>
        <source>Recall@100</source>
        <translation>Recall@100</translation>
    </message>
</context>
<context>
    <name>headroom::ui::plots::RetrievalSparsityPlot</name>
    <message>
        <source>Sparsity</source>
        <translation>Dünnbesetztheit</translation>
    </message>
    <message>
        <source>step</source>
        <translation>Schritt</translation>
    </message>
    <message>
        <source>FLOPS</source>
        <translation>FLOPS</translation>
    </message>
    <message>
        <source>non-zero weights</source>
        <translation>Gewichte ungleich null</translation>
    </message>
    <message>
        <source>FLOPS queries</source>
        <translation>FLOPS Anfragen</translation>
    </message>
    <message>
        <source>FLOPS passages</source>
        <translation>FLOPS Passagen</translation>
    </message>
    <message>
        <source>non-zeros per query</source>
        <translation>ungleich null je Anfrage</translation>
    </message>
    <message>
        <source>non-zeros per passage</source>
        <translation>ungleich null je Passage</translation>
    </message>
</context>
<context>
    <name>headroom::ui::plots::RoutingPlot</name>
    <message>
        <source>Routing</source>
        <translation>Routing</translation>
    </message>
    <message>
        <source>step</source>
        <translation>Schritt</translation>
    </message>
    <message>
        <source>dropped %</source>
        <translation>verworfen %</translation>
    </message>
    <message>
        <source>loss</source>
        <translation>Verlust</translation>
    </message>
    <message>
        <source>dropped assignments</source>
        <translation>verworfene Zuweisungen</translation>
    </message>
    <message>
        <source>balancing loss</source>
        <translation>Balancing-Verlust</translation>
    </message>
    <message>
        <source>router z-loss</source>
        <translation>Router-z-Verlust</translation>
    </message>
</context>
<context>
    <name>headroom::ui::plots::ThroughputPlot</name>
    <message>
        <source>Throughput</source>
        <translation>Durchsatz</translation>
    </message>
    <message>
        <source>step</source>
        <translation>Schritt</translation>
    </message>
    <message>
        <source>tokens/s</source>
        <translation>Token/s</translation>
    </message>
    <message>
        <source>throughput</source>
        <translation>Durchsatz</translation>
    </message>
    <message>
        <source>samples/s</source>
        <translation>Beispiele/s</translation>
    </message>
</context>
<context>
    <name>main</name>
    <message>
        <source>Train real models on modest hardware without out-of-memory errors.</source>
        <translation>Echte Modelle auf bescheidener Hardware trainieren – ohne Speicherfehler.</translation>
    </message>
    <message>
        <source>Start, show the main window once, and exit 0.</source>
        <translation>Starten, das Hauptfenster einmal zeigen und mit 0 beenden.</translation>
    </message>
    <message>
        <source>Project file to open.</source>
        <translation>Zu öffnende Projektdatei.</translation>
    </message>
</context>
</TS>
