<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>BaseModelText</name>
    <message>
        <source>%1 billion parameters</source>
        <translation>%1 十亿参数</translation>
    </message>
    <message>
        <source>%1 million parameters</source>
        <translation>%1 百万参数</translation>
    </message>
    <message>
        <source>%1 parameters</source>
        <translation>%1 个参数</translation>
    </message>
    <message>
        <source>Stored as %1, %2 on disk</source>
        <translation>存储为 %1，磁盘上 %2</translation>
    </message>
    <message>
        <source> in %1 shards</source>
        <translation>，分为 %1 个分片</translation>
    </message>
    <message>
        <source>%1 layers · width %2 · %3 attention heads (%4 for keys and values) · vocabulary %5</source>
        <translation>%1 层 · 宽度 %2 · %3 个注意力头（键和值 %4 个）· 词表 %5</translation>
    </message>
    <message>
        <source>Context length: %1 tokens</source>
        <translation>上下文长度：%1 个词元</translation>
    </message>
    <message>
        <source>Tokenizer: %1</source>
        <translation>分词器：%1</translation>
    </message>
    <message>
        <source>Memory for the weights: %1 in fp32 · %2 in bf16</source>
        <translation>权重所需内存：fp32 为 %1 · bf16 为 %2</translation>
    </message>
    <message>
        <source>A masked language model: it trains as a &lt;b&gt;SPLADE sparse retrieval encoder&lt;/b&gt; (queries and passages become weighted vocabulary terms; every weight is fine-tuned).</source>
        <translation>掩码语言模型：将训练为 &lt;b&gt;SPLADE 稀疏检索编码器&lt;/b&gt;（查询和段落变为加权的词表词项；所有权重都会微调）。</translation>
    </message>
    <message>
        <source>Mixture of Experts: %1 experts in every layer, each token routed to %2 of them (all experts are held in memory)</source>
        <translation>混合专家（MoE）：每层 %1 个专家，每个词元路由到其中 %2 个（所有专家都常驻内存）</translation>
    </message>
</context>
<context>
    <name>ConfigKeys</name>
    <message>
        <source>auto, cpu, cuda, cuda:N or mps</source>
        <translation>auto、cpu、cuda、cuda:N 或 mps</translation>
    </message>
    <message>
        <source>Training data file (relative paths are relative to the project file)</source>
        <translation>训练数据文件（相对路径相对于项目文件）</translation>
    </message>
    <message>
        <source>JSONL field or CSV column holding the text (gpt)</source>
        <translation>包含文本的 JSONL 字段或 CSV 列（gpt）</translation>
    </message>
    <message>
        <source>CSV target column (tabular); empty = last</source>
        <translation>CSV 目标列（表格）；留空 = 最后一列</translation>
    </message>
    <message>
        <source>Tabular task; auto infers it from the target column</source>
        <translation>表格任务；auto 根据目标列推断</translation>
    </message>
    <message>
        <source>Examples held for shuffling</source>
        <translation>用于打乱顺序而保留的样本数</translation>
    </message>
    <message>
        <source>Records read from the file; 0 = all</source>
        <translation>从文件读取的记录数；0 = 全部</translation>
    </message>
    <message>
        <source>Share of records kept for validation</source>
        <translation>留作验证的记录比例</translation>
    </message>
    <message>
        <source>Tokens between windows (gpt); 0 = seq_len</source>
        <translation>窗口之间的词元数（gpt）；0 = seq_len</translation>
    </message>
    <message>
        <source>SentencePiece vocabulary size</source>
        <translation>SentencePiece 词表大小</translation>
    </message>
    <message>
        <source>Target parameter count (gpt); 0 = use layers, heads and dim</source>
        <translation>目标参数量（gpt）；0 = 使用 layers、heads 和 dim</translation>
    </message>
    <message>
        <source>Transformer blocks (gpt)</source>
        <translation>Transformer 块数（gpt）</translation>
    </message>
    <message>
        <source>Attention heads (gpt)</source>
        <translation>注意力头数（gpt）</translation>
    </message>
    <message>
        <source>Embedding width (gpt)</source>
        <translation>嵌入宽度（gpt）</translation>
    </message>
    <message>
        <source>Context length in tokens (gpt)</source>
        <translation>上下文长度，以词元计（gpt）</translation>
    </message>
    <message>
        <source>Dropout probability</source>
        <translation>Dropout 概率</translation>
    </message>
    <message>
        <source>Hidden layer widths of the tabular MLP, comma-separated</source>
        <translation>表格 MLP 各隐藏层宽度，以逗号分隔</translation>
    </message>
    <message>
        <source>Embedding width of categorical columns (tabular); 0 = automatic</source>
        <translation>类别列的嵌入宽度（表格）；0 = 自动</translation>
    </message>
    <message>
        <source>Hard memory cap such as 512MiB or 8GiB: CPU allocations beyond it fail, CUDA and MPS behave as a device of this size; none = no cap</source>
        <translation>硬性内存上限，如 512MiB 或 8GiB：超出的 CPU 分配会失败，CUDA 和 MPS 表现得如同该大小的设备；none = 无上限</translation>
    </message>
    <message>
        <source>Mixed precision: bf16 autocast (CPU; CUDA from compute capability 8.0), fp16 autocast with dynamic loss scaling (CUDA); weights stay fp32</source>
        <translation>混合精度：bf16 autocast（CPU；CUDA 需计算能力 8.0 及以上），fp16 autocast 配合动态损失缩放（CUDA）；权重保持 fp32</translation>
    </message>
    <message>
        <source>adamw keeps two fp32 moments (8 bytes per parameter); adamw8bit quantizes them block-wise (about 2 bytes per parameter)</source>
        <translation>adamw 保存两个 fp32 矩（每个参数 8 字节）；adamw8bit 按块量化它们（每个参数约 2 字节）</translation>
    </message>
    <message>
        <source>Keep optimizer state in pinned host memory and update there (CUDA only)</source>
        <translation>将优化器状态保存在锁页主机内存中并在那里更新（仅 CUDA）</translation>
    </message>
    <message>
        <source>Release cached device memory every N steps; 0 = never</source>
        <translation>每 N 步释放缓存的设备内存；0 = 从不</translation>
    </message>
    <message>
        <source>CUDA allocator expandable segments (LibTorch 2.1 or newer)</source>
        <translation>CUDA 分配器的可扩展段（LibTorch 2.1 或更新版本）</translation>
    </message>
    <message>
        <source>CUDA allocator: blocks larger than this are never split (fights fragmentation); none = LibTorch&apos;s default</source>
        <translation>CUDA 分配器：大于此值的块从不拆分（减少碎片）；none = LibTorch 默认值</translation>
    </message>
    <message>
        <source>CUDA allocator: reclaim cached blocks above this share of the budget; 0 = off</source>
        <translation>CUDA 分配器：回收超过预算此比例的缓存块；0 = 关闭</translation>
    </message>
    <message>
        <source>Out-of-memory recovery never halves the micro-batch below this</source>
        <translation>内存不足恢复不会将微批次减半到低于此值</translation>
    </message>
    <message>
        <source>Out-of-memory recoveries allowed per run before it pauses</source>
        <translation>每次运行在暂停前允许的内存不足恢复次数</translation>
    </message>
    <message>
        <source>Examples per forward/backward pass</source>
        <translation>每次前向/反向传播的样本数</translation>
    </message>
    <message>
        <source>Micro-batches per optimizer step (effective batch = micro_batch x accumulation)</source>
        <translation>每个优化器步骤的微批次数（有效批次 = micro_batch x accumulation）</translation>
    </message>
    <message>
        <source>Peak learning rate (AdamW)</source>
        <translation>峰值学习率（AdamW）</translation>
    </message>
    <message>
        <source>Final learning rate as a share of train.lr</source>
        <translation>最终学习率占 train.lr 的比例</translation>
    </message>
    <message>
        <source>Linear warm-up steps before cosine decay</source>
        <translation>余弦衰减之前的线性预热步数</translation>
    </message>
    <message>
        <source>AdamW weight decay</source>
        <translation>AdamW 权重衰减</translation>
    </message>
    <message>
        <source>Clip the gradient norm to this; 0 = off</source>
        <translation>将梯度范数裁剪到此值；0 = 关闭</translation>
    </message>
    <message>
        <source>Seed of initialization, dropout and shuffling</source>
        <translation>初始化、dropout 和打乱顺序的随机种子</translation>
    </message>
    <message>
        <source>Steps between checkpoints; 0 = only at the end</source>
        <translation>检查点之间的步数；0 = 仅在结束时</translation>
    </message>
    <message>
        <source>Checkpoints kept per run; older ones are deleted</source>
        <translation>每次运行保留的检查点数；较旧的会被删除</translation>
    </message>
    <message>
        <source>Steps between validation passes; 0 = only at the end</source>
        <translation>验证之间的步数；0 = 仅在结束时</translation>
    </message>
    <message>
        <source>CPU threads for LibTorch; 0 = all cores</source>
        <translation>LibTorch 使用的 CPU 线程数；0 = 全部核心</translation>
    </message>
    <message>
        <source>LoRA scaling numerator: updates scale by alpha/rank</source>
        <translation>LoRA 缩放分子：更新按 alpha/rank 缩放</translation>
    </message>
    <message>
        <source>Dropout on the input of the LoRA adapters</source>
        <translation>LoRA 适配器输入上的 dropout</translation>
    </message>
    <message>
        <source>Activation checkpointing (gpt): 0 = off, 1 = every block, k = every k-th block (true/on = 1, false/off = 0); recomputes activations in backward to save memory</source>
        <translation>激活检查点（gpt）：0 = 关闭，1 = 每个块，k = 每隔 k 个块（true/on = 1，false/off = 0）；在反向传播中重新计算激活以节省内存</translation>
    </message>
    <message>
        <source>Optimizer steps of the run (derived from train.epochs when that is set)</source>
        <translation>本次运行的优化器步数（设置了 train.epochs 时由其推出）</translation>
    </message>
    <message>
        <source>Passes over the training split (tabular); above 0 the run&apos;s steps follow from it: epochs x training rows / effective batch. 0 = use train.steps</source>
        <translation>遍历训练集的轮数（表格）；大于 0 时运行步数由此得出：轮数 × 训练行数 / 有效批大小。0 = 使用 train.steps</translation>
    </message>
    <message>
        <source>Stop after this many validation passes without a lower validation loss and make the best checkpoint the run&apos;s result; 0 = off (true/on = 10)</source>
        <translation>连续这么多次验证的验证损失都没有降低时停止，并以最佳检查点作为运行结果；0 = 关闭（true/on = 10）</translation>
    </message>
    <message>
        <source>Loss weights per class (tabular classification): balanced = inverse class frequency; auto = square root of that when the largest class has 4 or more times the rows of the smallest, else none</source>
        <translation>各类别的损失权重（表格分类）：balanced = 类别频率的倒数；auto = 当最大类别的行数至少是最小类别的 4 倍时取其平方根，否则不加权</translation>
    </message>
    <message>
        <source>Micro-batches per validation pass; 0 = the whole validation split</source>
        <translation>每次验证的微批次数；0 = 整个验证集</translation>
    </message>
    <message>
        <source>byte needs no training; bpe/unigram train SentencePiece on the corpus; base uses the tokenizer of model.base</source>
        <translation>byte 无需训练；bpe/unigram 在语料上训练 SentencePiece；base 使用 model.base 的分词器</translation>
    </message>
    <message>
        <source>Hugging Face model folder to fine-tune (gpt); empty = a new model from scratch</source>
        <translation>要微调的 Hugging Face 模型文件夹（gpt）；留空 = 从头创建新模型</translation>
    </message>
    <message>
        <source>Rank of the LoRA adapters; 0 = off (train every weight). Needs model.base or lora.base_run</source>
        <translation>LoRA 适配器的秩；0 = 关闭（训练所有权重）。需要 model.base 或 lora.base_run</translation>
    </message>
    <message>
        <source>Projections that get adapters, comma-separated: qkv, attn_out, mlp_in, mlp_out, experts_in, experts_out (the experts of MoE blocks); for model.base also the folder&apos;s names (q_proj, v_proj, c_attn, ...) or all-linear</source>
        <translation>添加适配器的投影，逗号分隔：qkv、attn_out、mlp_in、mlp_out、experts_in、experts_out（MoE 块的专家）；使用 model.base 时也可用文件夹中的名称（q_proj、v_proj、c_attn 等）或 all-linear</translation>
    </message>
    <message>
        <source>Run whose latest checkpoint is the frozen base (lora.rank &gt; 0 without model.base)</source>
        <translation>以其最新检查点作为冻结基座的运行（lora.rank &gt; 0 且无 model.base 时）</translation>
    </message>
    <message>
        <source>Experts per Mixture-of-Experts block (gpt); 0 = dense blocks</source>
        <translation>每个混合专家（MoE）块的专家数（gpt）；0 = 稠密块</translation>
    </message>
    <message>
        <source>Experts each token is routed to (1 to moe.experts)</source>
        <translation>每个词元路由到的专家数（1 到 moe.experts）</translation>
    </message>
    <message>
        <source>Tokens an expert takes per sequence: capacity_factor x tokens x top_k / experts; routings beyond it are dropped (the residual carries the token); 0 = no limit</source>
        <translation>每个专家在每个序列中接收的词元数：capacity_factor x 词元数 x top_k / experts；超出的分配被丢弃（由残差路径传递该词元）；0 = 不限制</translation>
    </message>
    <message>
        <source>Every k-th block is an MoE block (blocks k, 2k, ... counting from 1); 1 = all</source>
        <translation>每第 k 个块为 MoE 块（从 1 开始计数的第 k、2k、... 个块）；1 = 全部</translation>
    </message>
    <message>
        <source>Hidden width of each expert MLP; 0 = 4 x model.dim</source>
        <translation>每个专家 MLP 的隐藏层宽度；0 = 4 x model.dim</translation>
    </message>
    <message>
        <source>Weight of the load-balancing loss (Switch/GShard form, which is 1 for perfectly balanced routing)</source>
        <translation>负载均衡损失的权重（Switch/GShard 形式，路由完全均衡时为 1）</translation>
    </message>
    <message>
        <source>Weight of the router z-loss (ST-MoE: mean squared logsumexp of the router logits)</source>
        <translation>路由器 z 损失的权重（ST-MoE：路由器 logits 的 logsumexp 平方的均值）</translation>
    </message>
    <message>
        <source>Router input noise in training: the input is multiplied by uniform noise in [1 - j, 1 + j]; 0 = off</source>
        <translation>训练时路由器输入的噪声：输入乘以 [1 - j, 1 + j] 内的均匀噪声；0 = 关闭</translation>
    </message>
    <message>
        <source>Tokens of a sample continuation written at each validation (gpt); 0 = off</source>
        <translation>每次验证时写出的示例续写的词元数（gpt）；0 = 关闭</translation>
    </message>
    <message>
        <source>How the frozen base of a LoRA run (model.base) holds its attention and MLP weights: fp32, bf16/fp16 (2 bytes), int8 (per-row absmax, ~1 byte) or nf4 (4-bit NormalFloat with double-quantized scales, ~0.52 bytes); embeddings, norms and the output head stay fp32</source>
        <translation>LoRA 运行的冻结基座 (model.base) 如何保存其注意力和 MLP 权重：fp32、bf16/fp16（2 字节）、int8（按行 absmax，约 1 字节）或 nf4（4 位 NormalFloat，缩放因子双重量化，约 0.52 字节）；嵌入、归一化层和输出头保持 fp32</translation>
    </message>
    <message>
        <source>What out-of-memory recovery may switch on, in order, once the micro-batch is 1: checkpointing, bf16, adamw8bit, int8 and nf4 (the frozen base of a LoRA run on model.base), offload; none = nothing</source>
        <translation>微批次为 1 后，内存不足恢复可依次启用的技术：checkpointing、bf16、adamw8bit、int8 和 nf4（基于 model.base 的 LoRA 运行的冻结基座）、offload；none = 不启用</translation>
    </message>
    <message>
        <source>What to train: a GPT language model from scratch, a tabular MLP, a SPLADE sparse retrieval encoder (on a BERT-family model.base) or a pretrained causal language model (causal_lm, on model.base; projects before it say gpt)</source>
        <translation>训练什么：从零开始的 GPT 语言模型、表格 MLP、SPLADE 稀疏检索编码器（基于 BERT 系列的 model.base），或预训练的因果语言模型（causal_lm，基于 model.base；更早的项目写作 gpt）</translation>
    </message>
    <message>
        <source>Distributed runs (RANK/WORLD_SIZE set, or train --nproc): seconds a rank waits for the others at the rendezvous and each gradient exchange before it stops with a message naming the missing rank</source>
        <translation>分布式运行（设置了 RANK/WORLD_SIZE，或 train --nproc）：一个 rank 在会合点和每次梯度交换时等待其他 rank 的秒数，超时后停止并给出缺失 rank 的名称</translation>
    </message>
    <message>
        <source>Weight of the FLOPS regularizer on the queries (sparser queries as it grows)</source>
        <translation>查询上 FLOPS 正则项的权重（越大，查询越稀疏）</translation>
    </message>
    <message>
        <source>Weight of the FLOPS regularizer on the passages</source>
        <translation>段落上 FLOPS 正则项的权重</translation>
    </message>
    <message>
        <source>Steps over which the FLOPS weights grow quadratically to their values; 0 = full weights from the start</source>
        <translation>FLOPS 权重按二次方增长到设定值所用的步数；0 = 从一开始就使用完整权重</translation>
    </message>
    <message>
        <source>Hard negatives per query in training, taken in turn from each record&apos;s &quot;negatives&quot; (every other passage of the batch is a negative too)</source>
        <translation>训练中每个查询的困难负例数，依次取自每条记录的 &quot;negatives&quot;（批次中其他所有段落也都是负例）</translation>
    </message>
    <message>
        <source>kto: the weight of the loss of records labelled desirable (true)</source>
        <translation>kto：标记为期望（true）的记录的损失权重</translation>
    </message>
    <message>
        <source>kto: the weight of the loss of records labelled undesirable (false)</source>
        <translation>kto：标记为不期望（false）的记录的损失权重</translation>
    </message>
    <message>
        <source>Preference objectives: beta, how far the policy may move from the reference (dpo, ipo) or the reward scale (simpo)</source>
        <translation>偏好目标：beta，策略可偏离参考模型的程度（dpo、ipo），或奖励的尺度（simpo）</translation>
    </message>
    <message>
        <source>dpo and simpo: the share of pairs assumed mislabelled (conservative DPO); 0 = none</source>
        <translation>dpo 和 simpo：假定标注错误的偏好对比例（保守 DPO）；0 = 无</translation>
    </message>
    <message>
        <source>simpo: the target reward margin gamma</source>
        <translation>simpo：目标奖励间隔 gamma</translation>
    </message>
    <message>
        <source>orpo: the weight of the odds-ratio term beside the next-token loss of the chosen sequence (its prompt and completion, as TRL)</source>
        <translation>orpo：除被选序列（提示与回答，与 TRL 相同）的下一词元损失之外，几率比项的权重</translation>
    </message>
    <message>
        <source>dpo and ipo: one no-grad pass over the data before training computes the reference log-probabilities and stores them in the project (reused while the data, base and settings stay the same), so training runs no reference model: faster steps, and without LoRA no frozen copy in memory</source>
        <translation>dpo 和 ipo：训练前以无梯度方式遍历一次数据，计算参考模型的对数概率并存入项目（数据、基座模型和设置不变时重复使用），训练时不再运行参考模型：步骤更快，不用 LoRA 时也无需在内存中保留冻结副本</translation>
    </message>
    <message>
        <source>dpo and ipo without LoRA: how the frozen reference copy of the base holds its attention and MLP weights (int8/nf4 save memory at a small error in the reference log-probabilities)</source>
        <translation>不使用 LoRA 的 dpo 和 ipo：基座模型的冻结参考副本如何保存其注意力与 MLP 权重（int8/nf4 节省内存，参考对数概率会有少许误差）</translation>
    </message>
    <message>
        <source>Distributed runs: each rank keeps the optimizer state (AdamW moments, 8-bit states, offloaded master copies) of about 1/ranks of the parameters and broadcasts its updated parameters after each step (ZeRO stage 1); checkpoints hold the whole state</source>
        <translation>分布式运行：每个 rank 只保存约 1/rank 数参数的优化器状态（AdamW 动量、8 位状态、卸载的主副本），并在每步后广播其更新的参数（ZeRO 第 1 阶段）；检查点保存完整状态</translation>
    </message>
    <message>
        <source>Ranks the estimate and the plan assume for a sharded optimizer state; a distributed run sets it to its WORLD_SIZE</source>
        <translation>估算和计划为分片优化器状态假定的 rank 数；分布式运行会将其设为 WORLD_SIZE</translation>
    </message>
    <message>
        <source>When a GPU (mps, cuda) runs out of memory even at the smallest micro-batch and after every recovery.ladder rung: cpu = move the run to the CPU and go on with the same samples (slower); off = keep the device and pause with a diagnosis</source>
        <translation>当 GPU（mps、cuda）在最小微批次并尝试 recovery.ladder 的每一级后仍内存不足时：cpu = 将运行移到 CPU，用相同样本继续（较慢）；off = 保持该设备并暂停，给出诊断</translation>
    </message>
    <message>
        <source>Distributed runs: send the gradients in buckets while the backward of each step&apos;s last micro-batch still runs (as PyTorch DDP does); 0 = after the whole backward. Both give the same update</source>
        <translation>分布式运行：在每步最后一个微批的反向传播仍在进行时按桶发送梯度（与 PyTorch DDP 相同）；0 = 整个反向传播结束后再发送。两者得到相同的更新</translation>
    </message>
    <message>
        <source>Distributed runs: KiB of gradients per bucket of the overlapped exchange (distributed.overlap); a larger parameter has a bucket of its own</source>
        <translation>分布式运行：重叠交换 (distributed.overlap) 中每个桶的梯度 KiB 数；更大的参数单独占一个桶</translation>
    </message>
    <message>
        <source>Distributed runs: how ranks exchange gradients. gloo = through host memory (CPU, or any device); nccl = on the GPUs (device=cuda; each rank takes cuda:LOCAL_RANK; needs a LibTorch built with NCCL); auto = nccl on CUDA when this build has it, else gloo</source>
        <translation>分布式运行：各 rank 交换梯度的方式。gloo = 经由主机内存（CPU 或任何设备）；nccl = 在 GPU 上（device=cuda；每个 rank 使用 cuda:LOCAL_RANK；需要带 NCCL 构建的 LibTorch）；auto = 在 CUDA 上且此构建支持时用 nccl，否则用 gloo</translation>
    </message>
    <message>
        <source>How a GPT made from scratch attends: auto = on the CPU the explicit form while its T x T weights are cheap (seq_len &lt;= 16 x head size and, under memory.budget, all layers&apos; weights within a quarter of it), otherwise the fused kernel; on a GPU the fused kernel; sdpa = LibTorch 2.x&apos;s scaled_dot_product_attention (keeps no T x T weights, slower on the CPU; needs model.dropout=0); explicit = scores and softmax weights as tensors (what LibTorch 1.13 always runs)</source>
        <translation>从零创建的 GPT 如何计算注意力：auto = 在 CPU 上，当 T x T 权重开销小时（seq_len &lt;= 16 x 头大小，且在 memory.budget 下所有层的权重不超过其四分之一）使用显式形式，否则使用融合内核；在 GPU 上使用融合内核；sdpa = LibTorch 2.x 的 scaled_dot_product_attention（不保存 T x T 权重，在 CPU 上较慢；需要 model.dropout=0）；explicit = 将得分和 softmax 权重作为张量（LibTorch 1.13 始终如此运行）</translation>
    </message>
    <message>
        <source>Data format; auto goes by the file extension (JSONL whose first record has &quot;messages&quot; or &quot;conversations&quot; is chat); chat = conversations in JSONL or JSON, rendered with the chat template</source>
        <translation>数据格式；auto 按文件扩展名判断（第一条记录含 &quot;messages&quot; 或 &quot;conversations&quot; 的 JSONL 视为对话）；chat = JSONL 或 JSON 中的对话，用聊天模板渲染</translation>
    </message>
    <message>
        <source>Chat data: the template conversations are rendered with; empty = the one of model.base, chatml = the built-in ChatML template, else a file (.jinja, or a tokenizer_config.json / chat_template.json holding one)</source>
        <translation>对话数据：渲染对话所用的模板；空 = model.base 自带的模板，chatml = 内置 ChatML 模板，否则为一个文件（.jinja，或包含模板的 tokenizer_config.json / chat_template.json）</translation>
    </message>
    <message>
        <source>Chat data: the tokens learned; assistant = every assistant reply with its end-of-turn, last_assistant = the final reply only, all = the whole text</source>
        <translation>对话数据：学习哪些词元；assistant = 每条助手回复及其轮次结束符，last_assistant = 仅最后一条回复，all = 全部文本</translation>
    </message>
    <message>
        <source>Language models: place whole records (text, prompt/completion, conversations) side by side in windows of model.seq_len, best fit over the next 64, each attending only to itself with positions from 0; 0 = one padded window per prompt/completion or conversation, plain text as one stream</source>
        <translation>语言模型:将完整记录(文本、提示/补全、对话)并排放入 model.seq_len 的窗口,在接下来的 64 条中最佳匹配,每条只关注自身,位置从 0 开始;0 = 每个提示/补全或对话一个填充窗口,纯文本作为一个流</translation>
    </message>
    <message>
        <source>Preference pairs and grpo prompts: the most prompt tokens kept (the prompt&apos;s end, as TRL keeps it); 0 = no limit (a pair is cut at model.seq_len + 1 tokens, a prompt at model.seq_len, either way)</source>
        <translation>偏好对与 GRPO 提示：最多保留的提示 token 数（保留提示的末尾，与 TRL 相同）；0 = 不限（无论如何，偏好对在 model.seq_len + 1 个 token 处截断，提示在 model.seq_len 处截断）</translation>
    </message>
    <message>
        <source>What the run optimizes: sft = next-token loss on the data; dpo, ipo, simpo, orpo = preference tuning on &quot;prompt&quot;/&quot;chosen&quot;/&quot;rejected&quot; pairs (model.base; dpo and ipo against a frozen reference: the base with the LoRA adapters off, or a frozen copy without LoRA); kto = unpaired &quot;prompt&quot;/&quot;completion&quot;/&quot;label&quot; records against the reference; grpo = online RL on &quot;prompt&quot; records: completions sampled in groups, scored by grpo.reward. Dropout is off for them, as in TRL</source>
        <translation>运行优化的目标：sft = 数据上的下一个 token 损失；dpo、ipo、simpo、orpo = 基于 &quot;prompt&quot;/&quot;chosen&quot;/&quot;rejected&quot; 偏好对的偏好调优（model.base；dpo 和 ipo 对照冻结的参考模型：关闭 LoRA 适配器的基座，或无 LoRA 时的冻结副本）；kto = 对照参考模型的非成对 &quot;prompt&quot;/&quot;completion&quot;/&quot;label&quot; 记录；grpo = 基于 &quot;prompt&quot; 记录的在线强化学习：按组采样补全，由 grpo.reward 打分。它们都关闭 dropout，与 TRL 相同</translation>
    </message>
    <message>
        <source>grpo: the rewards, comma-separated, each KIND:ARGUMENT*WEIGHT: regex:PATTERN (1 when found), format:PATTERN (1 when the whole completion matches), exact:FIELD (the final answer equals the record&apos;s FIELD), length:N (1 at N tokens, less further away), command:CMD (a program reading JSONL on stdin, printing one reward per line); e.g. exact:answer,format:&lt;think&gt;.*&lt;/think&gt;*0.2</source>
        <translation>grpo：奖励，以逗号分隔，每项为 类型:参数*权重：regex:模式（找到时为 1），format:模式（整个补全匹配时为 1），exact:字段（最终答案等于记录中的该字段），length:N（N 个 token 时为 1，偏离越远越低），command:命令（从 stdin 读取 JSONL、每行输出一个奖励的程序）；例如 exact:answer,format:&lt;think&gt;.*&lt;/think&gt;*0.2</translation>
    </message>
    <message>
        <source>grpo, exact: rewards: where the final answer is in a completion (a regular expression; its last match, the first group when it has groups)</source>
        <translation>grpo 的 exact: 奖励：最终答案在补全中的位置（正则表达式；取最后一个匹配，有分组时取第一个分组）</translation>
    </message>
    <message>
        <source>grpo, command: rewards: seconds the program may take for one step&apos;s completions before the run pauses</source>
        <translation>grpo 的 command: 奖励：程序处理一步的补全可用的秒数，超时则运行暂停</translation>
    </message>
    <message>
        <source>grpo: completions sampled per prompt, whose rewards are compared with each other (train.micro_batch x train.accumulation must be a multiple)</source>
        <translation>grpo：每个提示采样的补全数，其奖励彼此比较（train.micro_batch x train.accumulation 必须是其倍数）</translation>
    </message>
    <message>
        <source>grpo: the longest completion, in tokens (model.seq_len bounds prompt and completion together)</source>
        <translation>grpo：最长补全的 token 数（model.seq_len 限制提示与补全的总长度）</translation>
    </message>
    <message>
        <source>grpo: sampling temperature of the completions</source>
        <translation>grpo：补全的采样温度</translation>
    </message>
    <message>
        <source>grpo: nucleus sampling, the smallest set of tokens holding this probability; 1 = off</source>
        <translation>grpo：核采样，累计概率达到该值的最小 token 集合；1 = 关闭</translation>
    </message>
    <message>
        <source>grpo: sample among the k most likely tokens only; 0 = off</source>
        <translation>grpo：只在概率最高的 k 个 token 中采样；0 = 关闭</translation>
    </message>
    <message>
        <source>grpo: weight of the KL penalty to the reference (the base with the LoRA adapters off, or a frozen copy); 0 = no reference model, as TRL&apos;s default</source>
        <translation>grpo：相对参考模型的 KL 惩罚权重（关闭 LoRA 适配器的基座，或冻结副本）；0 = 不使用参考模型，与 TRL 默认相同</translation>
    </message>
    <message>
        <source>grpo: the policy ratio is clipped to [1 - epsilon, 1 + epsilon_high]</source>
        <translation>grpo：策略比率被裁剪到 [1 - epsilon, 1 + epsilon_high]</translation>
    </message>
    <message>
        <source>grpo: the upper clipping bound (DAPO suggests 0.28); 0 = grpo.epsilon</source>
        <translation>grpo：裁剪上界（DAPO 建议 0.28）；0 = grpo.epsilon</translation>
    </message>
    <message>
        <source>grpo: how token losses are averaged: dapo = over the step&apos;s completion tokens, grpo = per completion then over completions, dr_grpo = over completions x grpo.max_new_tokens, bnpo = over each micro-batch&apos;s completion tokens</source>
        <translation>grpo：token 损失的平均方式：dapo = 对一步中所有补全 token 平均，grpo = 先在每个补全内平均再对补全平均，dr_grpo = 除以 补全数 x grpo.max_new_tokens，bnpo = 对每个微批次的补全 token 平均</translation>
    </message>
    <message>
        <source>grpo: advantages are the rewards minus their group&apos;s mean, divided by the group&apos;s standard deviation (group), the step&apos;s (batch), or not (none)</source>
        <translation>grpo：优势 = 奖励减去其组的均值，再除以组的标准差（group）、整步的标准差（batch），或不除（none）</translation>
    </message>
    <message>
        <source>grpo: completions with their rewards written to the log at each validation</source>
        <translation>grpo：每次验证时写入日志的补全及其奖励的数量</translation>
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
        <translation>MPS · %1 统一内存</translation>
    </message>
    <message numerus="yes">
        <source>CPU · %n cores · %1</source>
        <translation>
            <numerusform>CPU · %n 核 · %1</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>CPU: %1 · %n cores (LibTorch uses %2) · %3 RAM, %4 available</source>
        <translation>
            <numerusform>CPU：%1 · %n 核（LibTorch 使用 %2 个）· 内存 %3，可用 %4</numerusform>
        </translation>
    </message>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>CUDA: not in this LibTorch build (CPU only)</source>
        <translation>CUDA：此 LibTorch 版本不包含（仅 CPU）</translation>
    </message>
    <message>
        <source>CUDA: built in, but no CUDA device is visible</source>
        <translation>CUDA：已内置，但看不到 CUDA 设备</translation>
    </message>
    <message>
        <source>CUDA %1: %2 · %3, %4 free · compute capability %5.%6</source>
        <translation>CUDA %1：%2 · %3，空闲 %4 · 计算能力 %5.%6</translation>
    </message>
    <message>
        <source> · bf16</source>
        <translation> · bf16</translation>
    </message>
    <message>
        <source>MPS: Apple GPU · %1 unified memory</source>
        <translation>MPS：Apple GPU · %1 统一内存</translation>
    </message>
    <message>
        <source>MPS: built in, but not available on this machine</source>
        <translation>MPS：已内置，但在此计算机上不可用</translation>
    </message>
    <message>
        <source>MPS: not in this LibTorch build</source>
        <translation>MPS：此 LibTorch 版本不包含</translation>
    </message>
    <message>
        <source>LibTorch %1 · automatic device: %2</source>
        <translation>LibTorch %1 · 自动设备：%2</translation>
    </message>
    <message>
        <source>%1 of %2 (%3 %)</source>
        <translation>%1 / %2（%3 %）</translation>
    </message>
    <message>
        <source>No budget: the peak is %1.</source>
        <translation>未设预算：峰值为 %1。</translation>
    </message>
    <message>
        <source>&lt;b&gt;Won&apos;t fit&lt;/b&gt;: %1.</source>
        <translation>&lt;b&gt;放不下&lt;/b&gt;：%1。</translation>
    </message>
    <message>
        <source>&lt;b&gt;Tight&lt;/b&gt;: %1; less than 10 % stays free.</source>
        <translation>&lt;b&gt;紧张&lt;/b&gt;：%1；剩余空间不足 10 %。</translation>
    </message>
    <message>
        <source>&lt;b&gt;Fits&lt;/b&gt;: %1.</source>
        <translation>&lt;b&gt;放得下&lt;/b&gt;：%1。</translation>
    </message>
    <message>
        <source>%1 GB</source>
        <translation>%1 GB</translation>
    </message>
    <message>
        <source>This machine · %1 · %2</source>
        <translation>本机 · %1 · %2</translation>
    </message>
    <message>
        <source>CUDA GPU · %1 (%2 class)</source>
        <translation>CUDA GPU · %1（%2 级别）</translation>
    </message>
    <message>
        <source>This Mac · %1 unified memory</source>
        <translation>本机 Mac · %1 统一内存</translation>
    </message>
    <message>
        <source>Apple silicon · %1 unified memory</source>
        <translation>Apple 芯片 · %1 统一内存</translation>
    </message>
    <message numerus="yes">
        <source>This machine&apos;s CPU · %n cores · %1 RAM</source>
        <translation>
            <numerusform>本机 CPU · %n 核 · 内存 %1</numerusform>
        </translation>
    </message>
    <message>
        <source>CPU only · %1 RAM</source>
        <translation>仅 CPU · 内存 %1</translation>
    </message>
    <message>
        <source>the CUDA context and libraries keep about 6 % (at least 512 MiB)</source>
        <translation>CUDA 上下文和库约占 6 %（至少 512 MiB）</translation>
    </message>
    <message>
        <source>macOS lets Metal use about 2/3 of unified memory up to 36 GB, 3/4 above</source>
        <translation>macOS 允许 Metal 使用约 2/3 的统一内存（36 GB 以上为 3/4）</translation>
    </message>
    <message>
        <source>the OS and desktop keep a quarter of RAM (at least 2 GiB)</source>
        <translation>操作系统和桌面保留四分之一内存（至少 2 GiB）</translation>
    </message>
    <message>
        <source>Predicted step time: %1 s (from this machine&apos;s measured speed)</source>
        <translation>预测的步骤时间：%1 秒（根据本机实测速度）</translation>
    </message>
    <message>
        <source>Speeds are typical figures, not measured on this machine (Measure speed on the Hardware page).</source>
        <translation>速度为典型值，并非在本机测得（可在“硬件”页面测量速度）。</translation>
    </message>
</context>
<context>
    <name>headroom::ui::BaseModelBox</name>
    <message>
        <source>Base model folder</source>
        <translation>基础模型文件夹</translation>
    </message>
    <message>
        <source>A Hugging Face folder: config.json, *.safetensors, tokenizer</source>
        <translation>Hugging Face 文件夹：config.json、*.safetensors、分词器</translation>
    </message>
    <message>
        <source>Bro&amp;wse…</source>
        <translation>浏览(&amp;W)…</translation>
    </message>
    <message>
        <source>Choose the base model folder</source>
        <translation>选择基础模型文件夹</translation>
    </message>
    <message>
        <source>Choose a Pretrained Model Folder</source>
        <translation>选择预训练模型文件夹</translation>
    </message>
    <message>
        <source>Choose the folder of a pretrained model.</source>
        <translation>请选择预训练模型的文件夹。</translation>
    </message>
    <message>
        <source>Reading the model folder…</source>
        <translation>正在读取模型文件夹…</translation>
    </message>
    <message>
        <source>Memory plan (%1): %2</source>
        <translation>内存计划（%1）：%2</translation>
    </message>
    <message>
        <source>The weights alone need more than the %1 budget of %2 in fp32.</source>
        <translation>仅 fp32 权重就超出了 %2 的 %1 预算。</translation>
    </message>
    <message>
        <source>The fp32 weights take %1 % of the %2 budget of %3; training needs more for gradients, optimizer state and activations.</source>
        <translation>fp32 权重占 %3 的 %2 预算的 %1 %；训练还需要为梯度、优化器状态和激活值分配内存。</translation>
    </message>
</context>
<context>
    <name>headroom::ui::ChatPreviewPanel</name>
    <message>
        <source>Chat template</source>
        <translation>聊天模板</translation>
    </message>
    <message>
        <source>How each conversation becomes the text the model trains on (data.chat_template); the Try tab chats with the same template</source>
        <translation>每段对话如何变成模型训练所用的文本（data.chat_template）；“试用”页用同一模板聊天</translation>
    </message>
    <message>
        <source>ChatML (built in)</source>
        <translation>ChatML（内置）</translation>
    </message>
    <message>
        <source>A template file…</source>
        <translation>模板文件…</translation>
    </message>
    <message>
        <source>Chat template file</source>
        <translation>聊天模板文件</translation>
    </message>
    <message>
        <source>A .jinja file, or a tokenizer_config.json holding &quot;chat_template&quot;</source>
        <translation>.jinja 文件，或包含 &quot;chat_template&quot; 的 tokenizer_config.json</translation>
    </message>
    <message>
        <source>Br&amp;owse…</source>
        <translation>浏览(&amp;O)…</translation>
    </message>
    <message>
        <source>Choose the chat template file</source>
        <translation>选择聊天模板文件</translation>
    </message>
    <message>
        <source>Learn from</source>
        <translation>学习内容</translation>
    </message>
    <message>
        <source>The tokens the model learns to write (data.train_on); the rest of the conversation is context it reads</source>
        <translation>模型学习生成的词元（data.train_on）；对话的其余部分是它读取的上下文</translation>
    </message>
    <message>
        <source>The assistant&apos;s replies</source>
        <translation>助手的回复</translation>
    </message>
    <message>
        <source>The last reply only</source>
        <translation>仅最后一条回复</translation>
    </message>
    <message>
        <source>Everything (the whole conversation)</source>
        <translation>全部（整段对话）</translation>
    </message>
    <message>
        <source>&amp;Chat template:</source>
        <translation>聊天模板(&amp;C)：</translation>
    </message>
    <message>
        <source>&amp;Learn from:</source>
        <translation>学习内容(&amp;L)：</translation>
    </message>
    <message>
        <source>Conversations as the model sees them:</source>
        <translation>模型看到的对话：</translation>
    </message>
    <message>
        <source>Previous conversation</source>
        <translation>上一段对话</translation>
    </message>
    <message>
        <source>Next conversation</source>
        <translation>下一段对话</translation>
    </message>
    <message>
        <source>The conversation as rendered, learned text highlighted</source>
        <translation>渲染后的对话，学习的文本已高亮</translation>
    </message>
    <message>
        <source>The model&apos;s own</source>
        <translation>模型自带的</translation>
    </message>
    <message>
        <source>Choose a Chat Template</source>
        <translation>选择聊天模板</translation>
    </message>
    <message>
        <source>Chat templates (*.jinja *.json);;All files (*)</source>
        <translation>聊天模板 (*.jinja *.json);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Choose the chat template file.</source>
        <translation>请选择聊天模板文件。</translation>
    </message>
    <message>
        <source>%1: no such file</source>
        <translation>%1：文件不存在</translation>
    </message>
    <message>
        <source>A model made from scratch has no chat template of its own: training renders every conversation with data.chat_template (%1), and the Try tab chats with the same template. Its tokenizer is made when it trains, so there are no tokens to show yet.</source>
        <translation>从零开始的模型没有自带聊天模板：训练时用 data.chat_template（%1）渲染每段对话，“试用”页也用同一模板聊天。它的分词器在训练时才生成，所以暂时没有词元可显示。</translation>
    </message>
    <message>
        <source>ChatML</source>
        <translation>ChatML</translation>
    </message>
    <message>
        <source>Rendering the first conversations…</source>
        <translation>正在渲染前几段对话…</translation>
    </message>
    <message>
        <source>Cannot render the conversations: %1</source>
        <translation>无法渲染对话：%1</translation>
    </message>
    <message>
        <source>The file holds no conversation.</source>
        <translation>文件中没有对话。</translation>
    </message>
    <message numerus="yes">
        <source>%n conversations read (the whole file)</source>
        <translation>
            <numerusform>已读取 %n 段对话（整个文件）</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>The first %n conversations read</source>
        <translation>
            <numerusform>已读取前 %n 段对话</numerusform>
        </translation>
    </message>
    <message>
        <source>template: %1</source>
        <translation>模板：%1</translation>
    </message>
    <message>
        <source>%1 tokens: %2 learned (%3 %), %4 context the model reads without learning it</source>
        <translation>%1 个词元：学习 %2 个（%3 %），%4 个是模型只读不学的上下文</translation>
    </message>
    <message>
        <source>All fit the context of %1 tokens (model.seq_len).</source>
        <translation>全部都在 %1 个词元的上下文内（model.seq_len）。</translation>
    </message>
    <message numerus="yes">
        <source>%n longer than the context of %1 tokens + 1 (model.seq_len): training cuts them after the last reply that fits.</source>
        <translation>
            <numerusform>%n 段超过 %1 + 1 个词元的上下文（model.seq_len）：训练时在最后一条完整放得下的回复之后截断。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n with nothing to learn within the context: training skips them.</source>
        <translation>
            <numerusform>%n 段在上下文内没有可学习的内容：训练时跳过。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>line %1 · %n tokens, %2 learned</source>
        <translation>
            <numerusform>第 %1 行 · %n 个词元，学习 %2 个</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>headroom::ui::ChatTryPanel</name>
    <message>
        <source>System prompt</source>
        <translation>系统提示</translation>
    </message>
    <message>
        <source>Optional: how the model should behave, sent before the conversation</source>
        <translation>可选：希望模型如何表现，在对话之前发送</translation>
    </message>
    <message>
        <source>S&amp;ystem prompt:</source>
        <translation>系统提示(&amp;Y)：</translation>
    </message>
    <message>
        <source>Conversation</source>
        <translation>对话</translation>
    </message>
    <message>
        <source>Your messages and the model&apos;s replies appear here.</source>
        <translation>你的消息和模型的回复显示在这里。</translation>
    </message>
    <message>
        <source>Message</source>
        <translation>消息</translation>
    </message>
    <message>
        <source>Your message (Return sends, Shift+Return starts a new line)</source>
        <translation>你的消息（回车发送，Shift+回车换行）</translation>
    </message>
    <message>
        <source>Se&amp;nd</source>
        <translation>发送(&amp;N)</translation>
    </message>
    <message>
        <source>Send the message; the model replies to the whole conversation (Return in the message)</source>
        <translation>发送消息；模型会回复整段对话（在消息框中按回车）</translation>
    </message>
    <message>
        <source>St&amp;op</source>
        <translation>停止(&amp;O)</translation>
    </message>
    <message>
        <source>Stop the reply after the current token</source>
        <translation>在当前词元之后停止回复</translation>
    </message>
    <message>
        <source>C&amp;lear</source>
        <translation>清空(&amp;L)</translation>
    </message>
    <message>
        <source>Forget the conversation and start a new one</source>
        <translation>忘掉这段对话，重新开始</translation>
    </message>
    <message>
        <source>Locate &amp;Base Model…</source>
        <translation>定位基础模型(&amp;B)…</translation>
    </message>
    <message>
        <source>The model is still replying: wait for it, or stop it.</source>
        <translation>模型仍在回复：请等待，或停止它。</translation>
    </message>
    <message>
        <source>There are no weights to chat with yet.</source>
        <translation>还没有可以对话的权重。</translation>
    </message>
    <message>
        <source>Type a message first: the model replies to it.</source>
        <translation>请先输入消息：模型会回复它。</translation>
    </message>
    <message>
        <source>Loading the base model…</source>
        <translation>正在加载基础模型…</translation>
    </message>
    <message>
        <source>Loading the weights of run %1…</source>
        <translation>正在加载运行 %1 的权重…</translation>
    </message>
    <message>
        <source>Stopping…</source>
        <translation>正在停止…</translation>
    </message>
    <message>
        <source>The base model is replying…</source>
        <translation>基础模型正在回复…</translation>
    </message>
    <message>
        <source>Run %1 is replying…</source>
        <translation>运行 %1 正在回复…</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>ended at the end of its turn</source>
        <translation>在其轮次结束处结束</translation>
    </message>
    <message>
        <source>reached the token limit</source>
        <translation>达到词元上限</translation>
    </message>
    <message numerus="yes">
        <source>%n new tokens in %1 s (%2 tokens/s); %3.</source>
        <translation>
            <numerusform>%1 秒内生成 %n 个新词元（%2 词元/秒）；%3。</numerusform>
        </translation>
    </message>
    <message>
        <source>You</source>
        <translation>你</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
</context>
<context>
    <name>headroom::ui::CompareView</name>
    <message>
        <source>Runs to compare</source>
        <translation>要比较的运行</translation>
    </message>
    <message>
        <source>R&amp;uns to compare:</source>
        <translation>要比较的运行(&amp;U):</translation>
    </message>
    <message>
        <source>Only &amp;differences</source>
        <translation>仅显示差异(&amp;D)</translation>
    </message>
    <message>
        <source>Loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <source>step</source>
        <translation>步</translation>
    </message>
    <message>
        <source>loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <source>Peak memory</source>
        <translation>峰值内存</translation>
    </message>
    <message>
        <source>MiB</source>
        <translation>MiB</translation>
    </message>
    <message>
        <source>Run %1 · %2 steps · %3</source>
        <translation>运行 %1 · %2 步 · %3</translation>
    </message>
    <message>
        <source>run %1</source>
        <translation>运行 %1</translation>
    </message>
    <message>
        <source>status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>steps</source>
        <translation>步数</translation>
    </message>
    <message>
        <source>final loss</source>
        <translation>最终损失</translation>
    </message>
    <message>
        <source>final validation loss</source>
        <translation>最终验证损失</translation>
    </message>
    <message>
        <source>peak memory</source>
        <translation>峰值内存</translation>
    </message>
    <message>
        <source>mean throughput</source>
        <translation>平均吞吐量</translation>
    </message>
    <message>
        <source>OOM back-offs</source>
        <translation>OOM 回退次数</translation>
    </message>
    <message>
        <source>ran on</source>
        <translation>运行设备</translation>
    </message>
    <message>
        <source>%1 tokens/s</source>
        <translation>%1 词元/秒</translation>
    </message>
    <message>
        <source>%1 samples/s</source>
        <translation>%1 样本/秒</translation>
    </message>
    <message>
        <source>Setting</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>Run %1</source>
        <translation>运行 %1</translation>
    </message>
    <message>
        <source>validation</source>
        <translation>验证</translation>
    </message>
    <message>
        <source>mean balancing loss</source>
        <translation>平均均衡损失</translation>
    </message>
    <message>
        <source>mean router z-loss</source>
        <translation>平均路由器 z 损失</translation>
    </message>
    <message>
        <source>mean dropped tokens</source>
        <translation>平均丢弃词元</translation>
    </message>
    <message>
        <source>final reward margin</source>
        <translation>最终奖励间隔</translation>
    </message>
    <message>
        <source>final reward accuracy</source>
        <translation>最终奖励准确率</translation>
    </message>
</context>
<context>
    <name>headroom::ui::ConfigWizard</name>
    <message>
        <source>New Project</source>
        <translation>新建项目</translation>
    </message>
</context>
<context>
    <name>headroom::ui::DataPage</name>
    <message>
        <source>Task and data</source>
        <translation>任务与数据</translation>
    </message>
    <message>
        <source>Choose what to train and the file to learn from. The whole file is checked before you can go on.</source>
        <translation>选择要训练的内容和用于学习的文件。继续之前会检查整个文件。</translation>
    </message>
    <message>
        <source>Recipe</source>
        <translation>配方</translation>
    </message>
    <message>
        <source>Tabular model (CSV, predicts a column)</source>
        <translation>表格模型（CSV，预测某一列）</translation>
    </message>
    <message>
        <source>Data file</source>
        <translation>数据文件</translation>
    </message>
    <message>
        <source>&amp;Browse…</source>
        <translation>浏览(&amp;B)…</translation>
    </message>
    <message>
        <source>Choose the data file</source>
        <translation>选择数据文件</translation>
    </message>
    <message>
        <source>Tokenizer</source>
        <translation>分词器</translation>
    </message>
    <message>
        <source>Bytes (no training needed)</source>
        <translation>字节（无需训练）</translation>
    </message>
    <message>
        <source>BPE (SentencePiece, trained on the file)</source>
        <translation>BPE（SentencePiece，在该文件上训练）</translation>
    </message>
    <message>
        <source>Unigram (SentencePiece, trained on the file)</source>
        <translation>Unigram（SentencePiece，在该文件上训练）</translation>
    </message>
    <message>
        <source>Target column</source>
        <translation>目标列</translation>
    </message>
    <message>
        <source>&amp;Recipe:</source>
        <translation>配方(&amp;R)：</translation>
    </message>
    <message>
        <source>&amp;Data file:</source>
        <translation>数据文件(&amp;D)：</translation>
    </message>
    <message>
        <source>&amp;Tokenizer:</source>
        <translation>分词器(&amp;T)：</translation>
    </message>
    <message>
        <source>T&amp;arget column:</source>
        <translation>目标列(&amp;A)：</translation>
    </message>
    <message>
        <source>Preview of the first records</source>
        <translation>前几条记录的预览</translation>
    </message>
    <message>
        <source>&amp;First records:</source>
        <translation>前几条记录(&amp;F)：</translation>
    </message>
    <message>
        <source>Choose Data</source>
        <translation>选择数据</translation>
    </message>
    <message>
        <source>Choose a data file.</source>
        <translation>请选择一个数据文件。</translation>
    </message>
    <message>
        <source>Checking the data file…</source>
        <translation>正在检查数据文件…</translation>
    </message>
    <message>
        <source>%1 file, %2 records, %3</source>
        <translation>%1 文件，%2 条记录，%3</translation>
    </message>
    <message>
        <source>The data file reads cleanly.</source>
        <translation>数据文件可以正常读取。</translation>
    </message>
    <message>
        <source>Start from a pretrained model (Hugging Face folder)</source>
        <translation>从预训练模型开始（Hugging Face 文件夹）</translation>
    </message>
    <message>
        <source>Base &amp;model:</source>
        <translation>基础模型(&amp;M)：</translation>
    </message>
    <message>
        <source>Choose a data file to see it tokenized.</source>
        <translation>选择数据文件以查看其分词结果。</translation>
    </message>
    <message>
        <source>Nothing to tokenize: %1</source>
        <translation>没有可分词的内容：%1</translation>
    </message>
    <message>
        <source>Tokenizing the first lines…</source>
        <translation>正在对前几行分词…</translation>
    </message>
    <message>
        <source>Reading the model folder…</source>
        <translation>正在读取模型文件夹…</translation>
    </message>
    <message>
        <source>Choose the model folder to see its tokenizer at work.</source>
        <translation>选择模型文件夹以查看其分词器的效果。</translation>
    </message>
    <message>
        <source>The model folder cannot be used: %1</source>
        <translation>无法使用该模型文件夹：%1</translation>
    </message>
    <message>
        <source>Training the tokenizer on the first lines…</source>
        <translation>正在用前几行训练分词器…</translation>
    </message>
    <message>
        <source>Cannot tokenize the file: %1</source>
        <translation>无法对该文件分词：%1</translation>
    </message>
    <message>
        <source>A text, JSON, JSONL or CSV file (or drop one here)</source>
        <translation>文本、JSON、JSONL 或 CSV 文件（或拖放到此处）</translation>
    </message>
    <message>
        <source>Retrieval data: a JSON array or a JSONL file (one object per line) of records with &quot;query&quot;, &quot;positive&quot; (or &quot;positives&quot;, a list) and optionally &quot;negatives&quot; (hard negatives, a list), e.g. {&quot;query&quot;: &quot;capital of France&quot;, &quot;positive&quot;: &quot;Paris is the capital of France.&quot;, &quot;negatives&quot;: [&quot;Lyon is a city in France.&quot;]}</source>
        <translation>检索数据：JSON 数组或 JSONL 文件（每行一个对象），记录包含 &quot;query&quot;、&quot;positive&quot;（或列表 &quot;positives&quot;），可选 &quot;negatives&quot;（困难负例，列表），例如 {&quot;query&quot;: &quot;capital of France&quot;, &quot;positive&quot;: &quot;Paris is the capital of France.&quot;, &quot;negatives&quot;: [&quot;Lyon is a city in France.&quot;]}</translation>
    </message>
    <message>
        <source>Data files (*.txt *.json *.jsonl *.csv);;All files (*)</source>
        <translation>数据文件 (*.txt *.json *.jsonl *.csv);;所有文件 (*)</translation>
    </message>
    <message>
        <source>New GPT language model from scratch (text, JSONL or CSV text column)</source>
        <translation>从零开始的新 GPT 语言模型（文本、JSONL 或 CSV 文本列）</translation>
    </message>
    <message>
        <source>&amp;Pack short records side by side into full windows</source>
        <translation>将短记录并排打包进完整窗口(&amp;P)</translation>
    </message>
    <message>
        <source>data.packing: several records share one window of model.seq_len tokens, each seeing only itself, instead of one window per record padded to the longest of its batch. The same losses, far fewer padding tokens when records are short.</source>
        <translation>data.packing:多条记录共用一个 model.seq_len 个词元的窗口,每条只关注自身,而不是每条记录一个窗口、填充到其批次中最长的一条。损失相同,记录较短时填充词元少得多。</translation>
    </message>
    <message>
        <source>&amp;Objective:</source>
        <translation>目标(&amp;O)：</translation>
    </message>
</context>
<context>
    <name>headroom::ui::EmptyProjectView</name>
    <message>
        <source>No project open</source>
        <translation>未打开项目</translation>
    </message>
    <message>
        <source>This machine</source>
        <translation>本机</translation>
    </message>
    <message>
        <source>Start from a pretrained model — a Hugging Face folder such as Llama, Qwen or GPT-2 — and fine-tune it on your own text. Or train a small model from scratch on text or CSV data, or open an existing Headroom project (.headroom).</source>
        <translation>从预训练模型开始（Llama、Qwen 或 GPT-2 等 Hugging Face 文件夹），用您自己的文本进行微调。也可以用文本或 CSV 数据从零训练一个小模型，或打开已有的 Headroom 项目（.headroom）。</translation>
    </message>
    <message>
        <source>Start from a &amp;Pretrained Model…</source>
        <translation>从预训练模型开始(&amp;P)…</translation>
    </message>
    <message>
        <source>New Model from &amp;Scratch…</source>
        <translation>从零新建模型(&amp;S)…</translation>
    </message>
    <message>
        <source>&amp;Open Project…</source>
        <translation>打开项目(&amp;O)…</translation>
    </message>
    <message>
        <source>Recent models:</source>
        <translation>最近使用的模型：</translation>
    </message>
    <message>
        <source>Start from %1</source>
        <translation>从 %1 开始</translation>
    </message>
</context>
<context>
    <name>headroom::ui::HardwarePage</name>
    <message>
        <source>Hardware</source>
        <translation>硬件</translation>
    </message>
    <message>
        <source>Choose the machine to plan the training for and how much memory it may use.</source>
        <translation>选择要为哪台机器规划训练，以及训练可以使用多少内存。</translation>
    </message>
    <message>
        <source>Hardware profile</source>
        <translation>硬件配置</translation>
    </message>
    <message>
        <source>This machine</source>
        <translation>本机</translation>
    </message>
    <message>
        <source>Plan for an Apple computer (MPS)</source>
        <translation>为 Apple 电脑规划（MPS）</translation>
    </message>
    <message>
        <source>Plan for a CUDA GPU</source>
        <translation>为 CUDA GPU 规划</translation>
    </message>
    <message>
        <source>Plan for a CPU</source>
        <translation>为 CPU 规划</translation>
    </message>
    <message>
        <source>Memory budget in GiB</source>
        <translation>内存预算（GiB）</translation>
    </message>
    <message>
        <source> GiB</source>
        <translation> GiB</translation>
    </message>
    <message>
        <source>&amp;Plan for:</source>
        <translation>规划目标(&amp;P)：</translation>
    </message>
    <message>
        <source>Memory &amp;budget:</source>
        <translation>内存预算(&amp;B)：</translation>
    </message>
    <message>
        <source>%1 of physical memory. Default budget: %2.</source>
        <translation>物理内存 %1。默认预算：%2。</translation>
    </message>
    <message>
        <source>&lt;b&gt;This machine&lt;/b&gt;:&lt;br&gt;%1</source>
        <translation>&lt;b&gt;本机&lt;/b&gt;：&lt;br&gt;%1</translation>
    </message>
    <message>
        <source>&amp;Measure speed</source>
        <translation>测量速度(&amp;M)</translation>
    </message>
    <message>
        <source>Times matrix products and attention in each precision on this device (a few seconds); the plan then uses the measured speeds</source>
        <translation>在此设备上按每种精度测量矩阵乘法和注意力的速度（几秒钟）；之后计划将使用实测速度</translation>
    </message>
    <message>
        <source>Speed:</source>
        <translation>速度：</translation>
    </message>
    <message>
        <source>Measuring the speed of %1...</source>
        <translation>正在测量 %1 的速度…</translation>
    </message>
    <message>
        <source>Typical speeds of this kind of machine (only this machine&apos;s devices can be measured).</source>
        <translation>此类机器的典型速度（只能测量本机的设备）。</translation>
    </message>
    <message>
        <source>Not calibrated: the plan assumes typical speeds per precision.</source>
        <translation>未校准：计划按每种精度的典型速度估算。</translation>
    </message>
    <message>
        <source>Not calibrated: %1</source>
        <translation>未校准：%1</translation>
    </message>
    <message>
        <source>%1 not supported</source>
        <translation>%1 不受支持</translation>
    </message>
    <message>
        <source>%1 %2 GFLOP/s</source>
        <translation>%1 %2 GFLOP/s</translation>
    </message>
    <message>
        <source>%1 %2 GFLOP/s (%3× fp32)</source>
        <translation>%1 %2 GFLOP/s（fp32 的 %3×）</translation>
    </message>
    <message>
        <source>Measured matrix-product speed: %1.</source>
        <translation>实测矩阵乘法速度：%1。</translation>
    </message>
    <message>
        <source>fp32 matrix products run through %1.</source>
        <translation>fp32 矩阵乘法由 %1 执行。</translation>
    </message>
    <message>
        <source>bf16 is %1× slower than fp32 here: the plan and the out-of-memory ladder will not use it.</source>
        <translation>在本机上 bf16 比 fp32 慢 %1×：计划和内存不足时的升级阶梯都不会使用它。</translation>
    </message>
</context>
<context>
    <name>headroom::ui::Language</name>
    <message>
        <source>System default</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <source>System default (%1)</source>
        <translation>跟随系统（%1）</translation>
    </message>
</context>
<context>
    <name>headroom::ui::LiveView</name>
    <message>
        <source>No run yet: press Start to train this project.</source>
        <translation>尚无运行:按“开始”训练此项目。</translation>
    </message>
    <message>
        <source>S&amp;mooth loss</source>
        <translation>平滑损失(&amp;M)</translation>
    </message>
    <message>
        <source>Smoothing weight</source>
        <translation>平滑权重</translation>
    </message>
    <message>
        <source>Weight of the previous value in the moving average</source>
        <translation>移动平均中前一个值的权重</translation>
    </message>
    <message>
        <source>&amp;Log scale</source>
        <translation>对数刻度(&amp;L)</translation>
    </message>
    <message>
        <source>E&amp;xport Plots…</source>
        <translation>导出图表(&amp;X)…</translation>
    </message>
    <message>
        <source>Export Plots</source>
        <translation>导出图表</translation>
    </message>
    <message>
        <source>PNG images (*.png);;PDF documents (*.pdf)</source>
        <translation>PNG 图像 (*.png);;PDF 文档 (*.pdf)</translation>
    </message>
    <message>
        <source>Could not write %1.</source>
        <translation>无法写入 %1。</translation>
    </message>
    <message>
        <source>Full &amp;budget scale</source>
        <translation>完整预算刻度(&amp;B)</translation>
    </message>
    <message>
        <source>Scale the memory plot to the whole budget instead of the run&apos;s memory</source>
        <translation>将内存图缩放到整个预算，而不是运行实际使用的内存</translation>
    </message>
</context>
<context>
    <name>headroom::ui::LocalRanksRun</name>
    <message>
        <source>A run on several processes is already going.</source>
        <translation>一个多进程运行已在进行中。</translation>
    </message>
    <message>
        <source>Runs on several processes start from the command line on this system: see docs/DISTRIBUTED.md.</source>
        <translation>在此系统上，多进程运行需从命令行启动：参见 docs/DISTRIBUTED.md。</translation>
    </message>
    <message>
        <source>Cannot start %1 processes: %2 is missing (it is installed next to the app).</source>
        <translation>无法启动 %1 个进程：缺少 %2（它应安装在应用程序旁边）。</translation>
    </message>
    <message>
        <source>Cannot start %1: %2</source>
        <translation>无法启动 %1：%2</translation>
    </message>
</context>
<context>
    <name>headroom::ui::LogView</name>
    <message>
        <source>All entries</source>
        <translation>全部条目</translation>
    </message>
    <message>
        <source>Memory events</source>
        <translation>内存事件</translation>
    </message>
    <message>
        <source>Checkpoints</source>
        <translation>检查点</translation>
    </message>
    <message>
        <source>Problems</source>
        <translation>问题</translation>
    </message>
    <message>
        <source>State changes</source>
        <translation>状态变化</translation>
    </message>
    <message>
        <source>Show</source>
        <translation>显示</translation>
    </message>
    <message>
        <source>Filter messages</source>
        <translation>筛选消息</translation>
    </message>
    <message>
        <source>&amp;Show:</source>
        <translation>显示(&amp;S):</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>步</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>Message</source>
        <translation>消息</translation>
    </message>
    <message>
        <source>&lt;b&gt;The run could not continue.&lt;/b&gt; %1</source>
        <translation>&lt;b&gt;运行无法继续。&lt;/b&gt; %1</translation>
    </message>
</context>
<context>
    <name>headroom::ui::LoraControls</name>
    <message>
        <source>Train &amp;LoRA adapters (the base model stays frozen)</source>
        <translation>训练 LoRA 适配器(&amp;L)（基础模型保持冻结）</translation>
    </message>
    <message>
        <source>Train LoRA adapters</source>
        <translation>训练 LoRA 适配器</translation>
    </message>
    <message>
        <source>Off: every weight of the model is trained (needs memory for their gradients and optimizer state).</source>
        <translation>关闭：训练模型的所有权重（需要为其梯度和优化器状态分配内存）。</translation>
    </message>
    <message>
        <source>LoRA rank</source>
        <translation>LoRA 秩</translation>
    </message>
    <message>
        <source>All linear layers</source>
        <translation>所有线性层</translation>
    </message>
    <message>
        <source>lora.targets=all-linear: every projection of every block</source>
        <translation>lora.targets=all-linear：每个块的每个投影</translation>
    </message>
    <message>
        <source>&amp;Rank:</source>
        <translation>秩(&amp;R)：</translation>
    </message>
    <message>
        <source>Adapt:</source>
        <translation>适配：</translation>
    </message>
    <message>
        <source>Frozen base held as</source>
        <translation>冻结基座的保存格式</translation>
    </message>
    <message>
        <source>fp32 (4 bytes a weight)</source>
        <translation>fp32（每个权重 4 字节）</translation>
    </message>
    <message>
        <source>bf16 (2 bytes)</source>
        <translation>bf16（2 字节）</translation>
    </message>
    <message>
        <source>fp16 (2 bytes)</source>
        <translation>fp16（2 字节）</translation>
    </message>
    <message>
        <source>int8 (about 1 byte)</source>
        <translation>int8（约 1 字节）</translation>
    </message>
    <message>
        <source>nf4, 4-bit (about 0.52 bytes)</source>
        <translation>nf4，4 位（约 0.52 字节）</translation>
    </message>
    <message>
        <source>model.base_dtype: how the frozen attention and MLP weights are held. int8 and nf4 are dequantized layer by layer in each step: less memory, somewhat slower steps. Embeddings, norms and the output head stay fp32.</source>
        <translation>model.base_dtype：冻结的注意力和 MLP 权重的保存方式。int8 和 nf4 在每一步中逐层反量化：占用内存更少，步骤略慢。嵌入、归一化层和输出头保持 fp32。</translation>
    </message>
    <message>
        <source>&amp;Base held as:</source>
        <translation>基座格式(&amp;B)：</translation>
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
        <translation>新建项目(&amp;N)…</translation>
    </message>
    <message>
        <source>&amp;Open Project…</source>
        <translation>打开项目(&amp;O)…</translation>
    </message>
    <message>
        <source>Open a Headroom project file</source>
        <translation>打开 Headroom 项目文件</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;Start Training</source>
        <translation>开始训练(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Pause</source>
        <translation>暂停(&amp;P)</translation>
    </message>
    <message>
        <source>S&amp;top</source>
        <translation>停止(&amp;T)</translation>
    </message>
    <message>
        <source>&amp;About Headroom</source>
        <translation>关于 Headroom(&amp;A)</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Run</source>
        <translation>运行(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>Main</source>
        <translation>主工具栏</translation>
    </message>
    <message>
        <source>No project</source>
        <translation>无项目</translation>
    </message>
    <message>
        <source>About Headroom</source>
        <translation>关于 Headroom</translation>
    </message>
    <message>
        <source>&lt;h3&gt;Headroom %1&lt;/h3&gt;&lt;p&gt;Train real models on the hardware you have, without out-of-memory errors.&lt;/p&gt;</source>
        <translation>&lt;h3&gt;Headroom %1&lt;/h3&gt;&lt;p&gt;在您现有的硬件上训练真实模型，不再出现内存不足错误。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Cannot open project</source>
        <translation>无法打开项目</translation>
    </message>
    <message>
        <source>Headroom could not open %1:
%2</source>
        <translation>Headroom 无法打开 %1：
%2</translation>
    </message>
    <message>
        <source>%1 — Headroom</source>
        <translation>%1 — Headroom</translation>
    </message>
    <message>
        <source>Open Project</source>
        <translation>打开项目</translation>
    </message>
    <message>
        <source>Headroom projects (*.headroom);;All files (*)</source>
        <translation>Headroom 项目 (*.headroom);;所有文件 (*)</translation>
    </message>
    <message>
        <source>&amp;Reload Project</source>
        <translation>重新加载项目(&amp;R)</translation>
    </message>
    <message>
        <source>Runs: %1</source>
        <translation>运行记录：%1</translation>
    </message>
    <message>
        <source>&amp;Plan</source>
        <translation>计划(&amp;P)</translation>
    </message>
    <message>
        <source>&amp;Live</source>
        <translation>实时(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Compare</source>
        <translation>比较(&amp;C)</translation>
    </message>
    <message>
        <source>Lo&amp;g</source>
        <translation>日志(&amp;G)</translation>
    </message>
    <message>
        <source>Project</source>
        <translation>项目</translation>
    </message>
    <message>
        <source>A run is training</source>
        <translation>正在训练</translation>
    </message>
    <message>
        <source>Stop the run and quit? Headroom writes a checkpoint first, so you can continue the run later.</source>
        <translation>停止运行并退出?Headroom 会先写入检查点,以便稍后继续运行。</translation>
    </message>
    <message>
        <source>a run is training in this window; stop it first</source>
        <translation>此窗口中有运行正在训练,请先停止</translation>
    </message>
    <message>
        <source>No run selected: press Start to train, or pick a run in the Project panel.</source>
        <translation>未选择运行:按“开始”进行训练,或在项目面板中选择一个运行。</translation>
    </message>
    <message>
        <source>no project is open</source>
        <translation>没有打开的项目</translation>
    </message>
    <message>
        <source>a run is writing to the project; wait until it ends</source>
        <translation>有运行正在写入项目,请等待其结束</translation>
    </message>
    <message>
        <source>%1 already exists</source>
        <translation>%1 已存在</translation>
    </message>
    <message>
        <source>cannot copy the project to %1: %2</source>
        <translation>无法将项目复制到 %1:%2</translation>
    </message>
    <message>
        <source>Stopping: writing a checkpoint before quitting…</source>
        <translation>正在停止:退出前写入检查点…</translation>
    </message>
    <message>
        <source>Save Project &amp;As…</source>
        <translation>项目另存为(&amp;A)…</translation>
    </message>
    <message>
        <source>Copy the project, its runs and checkpoints to a new file</source>
        <translation>将项目及其运行和检查点复制到新文件</translation>
    </message>
    <message>
        <source>Export &amp;Metrics (CSV)…</source>
        <translation>导出指标 (CSV)(&amp;M)…</translation>
    </message>
    <message>
        <source>Write the selected run&apos;s metrics as CSV</source>
        <translation>将所选运行的指标写为 CSV</translation>
    </message>
    <message>
        <source>Export &amp;Weights…</source>
        <translation>导出权重(&amp;W)…</translation>
    </message>
    <message>
        <source>Write the selected run&apos;s latest checkpoint as safetensors</source>
        <translation>将所选运行的最新检查点写为 safetensors</translation>
    </message>
    <message>
        <source>Start a new run with the project&apos;s settings</source>
        <translation>使用项目设置开始新的运行</translation>
    </message>
    <message>
        <source>Cannot start</source>
        <translation>无法开始</translation>
    </message>
    <message>
        <source>&amp;Continue Last Run</source>
        <translation>继续上次运行(&amp;C)</translation>
    </message>
    <message>
        <source>Continue the latest run from its last checkpoint</source>
        <translation>从最新运行的最后一个检查点继续</translation>
    </message>
    <message>
        <source>Cannot continue</source>
        <translation>无法继续</translation>
    </message>
    <message>
        <source>Pause after the current optimizer step</source>
        <translation>在当前优化器步骤后暂停</translation>
    </message>
    <message>
        <source>&amp;Resume</source>
        <translation>继续(&amp;R)</translation>
    </message>
    <message>
        <source>Stop cleanly: the run writes a checkpoint first</source>
        <translation>干净地停止:运行会先写入检查点</translation>
    </message>
    <message>
        <source>Open &amp;Recent</source>
        <translation>最近打开(&amp;R)</translation>
    </message>
    <message>
        <source>E&amp;xport</source>
        <translation>导出(&amp;X)</translation>
    </message>
    <message>
        <source>step %v / %m</source>
        <translation>第 %v / %m 步</translation>
    </message>
    <message>
        <source>Training progress</source>
        <translation>训练进度</translation>
    </message>
    <message>
        <source>Save Project As</source>
        <translation>项目另存为</translation>
    </message>
    <message>
        <source>Headroom projects (*.headroom)</source>
        <translation>Headroom 项目 (*.headroom)</translation>
    </message>
    <message>
        <source>Export Metrics</source>
        <translation>导出指标</translation>
    </message>
    <message>
        <source>CSV files (*.csv)</source>
        <translation>CSV 文件 (*.csv)</translation>
    </message>
    <message>
        <source>Export Weights</source>
        <translation>导出权重</translation>
    </message>
    <message>
        <source>safetensors files (*.safetensors)</source>
        <translation>safetensors 文件 (*.safetensors)</translation>
    </message>
    <message>
        <source>Idle</source>
        <translation>空闲</translation>
    </message>
    <message>
        <source>Preparing</source>
        <translation>准备中</translation>
    </message>
    <message>
        <source>Training</source>
        <translation>训练中</translation>
    </message>
    <message>
        <source>Paused</source>
        <translation>已暂停</translation>
    </message>
    <message>
        <source>Stopping</source>
        <translation>正在停止</translation>
    </message>
    <message>
        <source>Finished</source>
        <translation>已完成</translation>
    </message>
    <message>
        <source>Stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>%1 h %2 min</source>
        <translation>%1 小时 %2 分</translation>
    </message>
    <message>
        <source>%1 min %2 s</source>
        <translation>%1 分 %2 秒</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 秒</translation>
    </message>
    <message>
        <source>Open or create a project first.</source>
        <translation>请先打开或创建项目。</translation>
    </message>
    <message>
        <source>A run is already training this project.</source>
        <translation>此项目已有运行在训练。</translation>
    </message>
    <message>
        <source>Preparing a run…</source>
        <translation>正在准备运行…</translation>
    </message>
    <message>
        <source>Pausing after this step…</source>
        <translation>将在此步骤后暂停…</translation>
    </message>
    <message>
        <source>Stopping: writing a checkpoint…</source>
        <translation>正在停止:写入检查点…</translation>
    </message>
    <message>
        <source>Run %1 · %2 · %3</source>
        <translation>运行 %1 · %2 · %3</translation>
    </message>
    <message>
        <source>ETA %1</source>
        <translation>剩余 %1</translation>
    </message>
    <message>
        <source>Run %1: %2 at step %3 of %4</source>
        <translation>运行 %1:%2,第 %3 / %4 步</translation>
    </message>
    <message>
        <source>Run %1 · %2</source>
        <translation>运行 %1 · %2</translation>
    </message>
    <message>
        <source>Run %1 · being trained by another process (%2) · live</source>
        <translation>运行 %1 · 由另一个进程训练 (%2) · 实时</translation>
    </message>
    <message>
        <source>Run %1 is training in another process</source>
        <translation>运行 %1 正在另一个进程中训练</translation>
    </message>
    <message>
        <source>Run %1 ended: %2</source>
        <translation>运行 %1 已结束:%2</translation>
    </message>
    <message>
        <source>Run %1 · %2 · %3 steps</source>
        <translation>运行 %1 · %2 · %3 步</translation>
    </message>
    <message>
        <source>This project has no runs yet.</source>
        <translation>此项目还没有运行。</translation>
    </message>
    <message>
        <source>Wrote %1 rows of run %2 to %3</source>
        <translation>已将运行 %2 的 %1 行写入 %3</translation>
    </message>
    <message>
        <source>Wrote the weights of run %1 at step %2 to %3</source>
        <translation>已将运行 %1 第 %2 步的权重写入 %3</translation>
    </message>
    <message>
        <source>&amp;Preferences…</source>
        <translation>首选项(&amp;P)…</translation>
    </message>
    <message>
        <source>&amp;Evaluate on a File…</source>
        <translation>在文件上评估(&amp;E)…</translation>
    </message>
    <message>
        <source>Measure the selected run&apos;s result on a held-out file with the training data&apos;s columns</source>
        <translation>在与训练数据列相同的留出文件上衡量所选运行的结果</translation>
    </message>
    <message>
        <source>Evaluate on a File</source>
        <translation>在文件上评估</translation>
    </message>
    <message>
        <source>Data files (*.csv *.txt *.jsonl *.ndjson);;All files (*)</source>
        <translation>数据文件 (*.csv *.txt *.jsonl *.ndjson);;所有文件 (*)</translation>
    </message>
    <message numerus="yes">
        <source>%n examples</source>
        <translation>
            <numerusform>%n 个样本</numerusform>
        </translation>
    </message>
    <message>
        <source>accuracy %1 %</source>
        <translation>准确率 %1 %</translation>
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
        <translation>损失 %1</translation>
    </message>
    <message>
        <source>latest checkpoint, step %1</source>
        <translation>最新检查点，第 %1 步</translation>
    </message>
    <message>
        <source>best checkpoint, step %1</source>
        <translation>最佳检查点，第 %1 步</translation>
    </message>
    <message>
        <source>Run %1 (%2) on %3: %4</source>
        <translation>运行 %1（%2）在 %3 上：%4</translation>
    </message>
    <message>
        <source>An evaluation is already running.</source>
        <translation>已有评估正在运行。</translation>
    </message>
    <message>
        <source>Evaluating run %1 on %2…</source>
        <translation>正在 %2 上评估运行 %1…</translation>
    </message>
    <message>
        <source>&amp;Try</source>
        <translation>试用(&amp;T)</translation>
    </message>
    <message>
        <source>Create a project from a text or CSV file, optionally starting from a pretrained model</source>
        <translation>从文本或 CSV 文件创建项目，可选择从预训练模型开始</translation>
    </message>
    <message>
        <source>Export as &amp;Hugging Face Folder…</source>
        <translation>导出为 Hugging Face 文件夹(&amp;H)…</translation>
    </message>
    <message>
        <source>Export LoRA &amp;Adapter (PEFT)…</source>
        <translation>导出 LoRA 适配器 (PEFT)(&amp;A)…</translation>
    </message>
    <message>
        <source>&amp;Locate Base Model…</source>
        <translation>定位基础模型(&amp;L)…</translation>
    </message>
    <message>
        <source>Point the project at the folder its pretrained base model moved to</source>
        <translation>将项目指向其预训练基础模型移动到的文件夹</translation>
    </message>
    <message>
        <source>Base model not found</source>
        <translation>未找到基础模型</translation>
    </message>
    <message>
        <source>The pretrained model this project starts from is not where it was, or its files changed.</source>
        <translation>此项目所基于的预训练模型已不在原处，或其文件已更改。</translation>
    </message>
    <message>
        <source>Locate Base Model</source>
        <translation>定位基础模型</translation>
    </message>
    <message>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <source>Only a project that starts from a pretrained model (model.base) exports in Hugging Face layout.</source>
        <translation>只有从预训练模型（model.base）开始的项目才能以 Hugging Face 格式导出。</translation>
    </message>
    <message>
        <source>Run %1 trained every weight, not LoRA adapters (lora.rank is 0): export it as a Hugging Face folder.</source>
        <translation>运行 %1 训练了所有权重，而不是 LoRA 适配器（lora.rank 为 0）：请将其导出为 Hugging Face 文件夹。</translation>
    </message>
    <message>
        <source>Write run %1 as a model folder that Hugging Face Transformers loads</source>
        <translation>将运行 %1 写为 Hugging Face Transformers 可加载的模型文件夹</translation>
    </message>
    <message>
        <source>Write the LoRA adapters of run %1 for PEFT (adapter_config.json, adapter_model.safetensors)</source>
        <translation>为 PEFT 写出运行 %1 的 LoRA 适配器（adapter_config.json、adapter_model.safetensors）</translation>
    </message>
    <message>
        <source>Export LoRA Adapter to a New Folder</source>
        <translation>将 LoRA 适配器导出到新文件夹</translation>
    </message>
    <message>
        <source>Export as Hugging Face Folder to a New Folder</source>
        <translation>以 Hugging Face 文件夹格式导出到新文件夹</translation>
    </message>
    <message>
        <source>An export is already running.</source>
        <translation>已有导出正在进行。</translation>
    </message>
    <message>
        <source>Exporting the LoRA adapters of run %1 to %2…</source>
        <translation>正在将运行 %1 的 LoRA 适配器导出到 %2…</translation>
    </message>
    <message>
        <source>Exporting run %1 as a Hugging Face folder to %2…</source>
        <translation>正在将运行 %1 以 Hugging Face 文件夹格式导出到 %2…</translation>
    </message>
    <message>
        <source>Wrote the LoRA adapters of run %1 at step %2 to %3</source>
        <translation>已将运行 %1 第 %2 步的 LoRA 适配器写入 %3</translation>
    </message>
    <message>
        <source>Wrote run %1 at step %2 as a Hugging Face folder to %3</source>
        <translation>已将运行 %1 第 %2 步以 Hugging Face 文件夹格式写入 %3</translation>
    </message>
    <message>
        <source>a run is training this project; wait until it ends</source>
        <translation>有运行正在训练此项目；请等待其结束</translation>
    </message>
    <message>
        <source>The project&apos;s base model is now %1</source>
        <translation>项目的基础模型现在是 %1</translation>
    </message>
    <message>
        <source>Pro&amp;ject</source>
        <translation>项目(&amp;J)</translation>
    </message>
    <message>
        <source> (the run held its base as %1: the folder has it dequantized, the adapters merged in)</source>
        <translation>（该运行以 %1 保存基座：文件夹中为反量化后的基座，并已合并适配器）</translation>
    </message>
    <message>
        <source>Start on Several &amp;Processes…</source>
        <translation>在多个进程上启动(&amp;P)…</translation>
    </message>
    <message>
        <source>Train with data parallel ranks on this machine (headroom-cli train --nproc N)</source>
        <translation>在本机上用数据并行的多个 rank 训练（headroom-cli train --nproc N）</translation>
    </message>
    <message>
        <source>Start on Several Processes</source>
        <translation>在多个进程上启动</translation>
    </message>
    <message>
        <source>Processes (ranks), each training its share of every step:</source>
        <translation>进程（rank）数，每个进程训练每一步中自己的份额：</translation>
    </message>
    <message>
        <source>The run on %1 processes ended with exit code %2</source>
        <translation>%1 个进程上的运行以退出码 %2 结束</translation>
    </message>
    <message>
        <source>Starting %1 processes…</source>
        <translation>正在启动 %1 个进程…</translation>
    </message>
    <message>
        <source>Pro&amp;file</source>
        <translation>性能分析(&amp;F)</translation>
    </message>
    <message>
        <source>a profile is running in this window; stop it first</source>
        <translation>此窗口中正在进行性能分析；请先停止它</translation>
    </message>
    <message>
        <source>A profile is running: start the run when it has ended.</source>
        <translation>正在进行性能分析：请在其结束后再开始训练。</translation>
    </message>
    <message>
        <source>Stopping every rank after this step…</source>
        <translation>所有 rank 将在这一步之后停止…</translation>
    </message>
    <message>
        <source>A tabular project has no Hugging Face layout: export its weights as safetensors instead.</source>
        <translation>表格项目没有 Hugging Face 布局：请改为将其权重导出为 safetensors。</translation>
    </message>
    <message>
        <source>Export for llama.cpp / &amp;Ollama (GGUF)…</source>
        <translation>导出到 llama.cpp / Ollama（GGUF）(&amp;O)…</translation>
    </message>
    <message>
        <source>Open a language model&apos;s project to export it as GGUF.</source>
        <translation>打开一个语言模型项目以导出为 GGUF。</translation>
    </message>
    <message>
        <source>Only language models run in llama.cpp and Ollama; this project trains a %1 model.</source>
        <translation>只有语言模型能在 llama.cpp 和 Ollama 中运行；此项目训练的是 %1 模型。</translation>
    </message>
    <message>
        <source>Write the base model as one GGUF file for llama.cpp, Ollama and LM Studio</source>
        <translation>将基础模型写成一个供 llama.cpp、Ollama 和 LM Studio 使用的 GGUF 文件</translation>
    </message>
    <message>
        <source>Write run %1 as one GGUF file for llama.cpp, Ollama and LM Studio (LoRA adapters merged)</source>
        <translation>将运行 %1 写成一个供 llama.cpp、Ollama 和 LM Studio 使用的 GGUF 文件（已合并 LoRA 适配器）</translation>
    </message>
    <message>
        <source>Export for llama.cpp / Ollama (GGUF)</source>
        <translation>导出到 llama.cpp / Ollama（GGUF）</translation>
    </message>
    <message>
        <source>GGUF files (*.gguf)</source>
        <translation>GGUF 文件 (*.gguf)</translation>
    </message>
    <message>
        <source>Exporting the base model as GGUF (%1) to %2…</source>
        <translation>正在将基础模型导出为 GGUF（%1）到 %2…</translation>
    </message>
    <message>
        <source>Exporting run %1 as GGUF (%2) to %3…</source>
        <translation>正在将运行 %1 导出为 GGUF（%2）到 %3…</translation>
    </message>
    <message>
        <source>Wrote the base model to %1</source>
        <translation>已将基础模型写入 %1</translation>
    </message>
    <message>
        <source>Wrote run %1 at step %2 to %3</source>
        <translation>已将运行 %1（第 %2 步）写入 %3</translation>
    </message>
    <message>
        <source> (GGUF, %1, %2, %3)</source>
        <translation>（GGUF，%1，%2，%3）</translation>
    </message>
    <message>
        <source>; Ollama: ollama create NAME -f %1</source>
        <translation>；Ollama：ollama create NAME -f %1</translation>
    </message>
    <message>
        <source>full precision, largest</source>
        <translation>全精度，最大</translation>
    </message>
    <message>
        <source>half precision</source>
        <translation>半精度</translation>
    </message>
    <message>
        <source>8 bits, nearly lossless</source>
        <translation>8 位，几乎无损</translation>
    </message>
    <message>
        <source>good quality, smaller</source>
        <translation>质量好，更小</translation>
    </message>
    <message>
        <source>smallest, some quality lost</source>
        <translation>最小，损失部分质量</translation>
    </message>
    <message>
        <source>Also write an &amp;Ollama Modelfile beside the file</source>
        <translation>同时在文件旁写入 Ollama Modelfile(&amp;O)</translation>
    </message>
    <message>
        <source>Measuring the size of each choice…</source>
        <translation>正在测量每个选项的大小…</translation>
    </message>
    <message>
        <source>&amp;Quantization:</source>
        <translation>量化(&amp;Q)：</translation>
    </message>
    <message>
        <source>Sizes of the file for this run&apos;s weights.</source>
        <translation>此运行权重对应的文件大小。</translation>
    </message>
    <message>
        <source>The sizes could not be measured: %1</source>
        <translation>无法测量大小：%1</translation>
    </message>
</context>
<context>
    <name>headroom::ui::MemoryBarsWidget</name>
    <message>
        <source>Predicted memory by role</source>
        <translation>按用途预测的内存</translation>
    </message>
    <message>
        <source>Weights</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>Gradients</source>
        <translation>梯度</translation>
    </message>
    <message>
        <source>Optimizer state</source>
        <translation>优化器状态</translation>
    </message>
    <message>
        <source>Activations</source>
        <translation>激活值</translation>
    </message>
    <message>
        <source>Overhead</source>
        <translation>额外开销</translation>
    </message>
    <message>
        <source>Peak %1</source>
        <translation>峰值 %1</translation>
    </message>
    <message>
        <source>Budget %1</source>
        <translation>预算 %1</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
</context>
<context>
    <name>headroom::ui::MemoryPlanPage</name>
    <message>
        <source>Memory plan</source>
        <translation>内存计划</translation>
    </message>
    <message>
        <source>The planner&apos;s prediction of the training step&apos;s peak memory. Change the techniques to see their effect at once.</source>
        <translation>规划器对训练步骤峰值内存的预测。更改技术选项即可立即看到其效果。</translation>
    </message>
    <message>
        <source>Precision</source>
        <translation>精度</translation>
    </message>
    <message>
        <source>fp32 (full precision)</source>
        <translation>fp32（全精度）</translation>
    </message>
    <message>
        <source>bf16 mixed precision</source>
        <translation>bf16 混合精度</translation>
    </message>
    <message>
        <source>fp16 mixed precision with loss scaling</source>
        <translation>fp16 混合精度（带损失缩放）</translation>
    </message>
    <message>
        <source>Activation &amp;checkpointing</source>
        <translation>激活检查点(&amp;C)</translation>
    </message>
    <message>
        <source>Activation checkpointing</source>
        <translation>激活检查点</translation>
    </message>
    <message>
        <source>&amp;8-bit AdamW</source>
        <translation>8 位 AdamW(&amp;8)</translation>
    </message>
    <message>
        <source>8-bit AdamW optimizer</source>
        <translation>8 位 AdamW 优化器</translation>
    </message>
    <message>
        <source>&amp;Offload optimizer state to host memory</source>
        <translation>将优化器状态卸载到主机内存(&amp;O)</translation>
    </message>
    <message>
        <source>Offload optimizer state</source>
        <translation>卸载优化器状态</translation>
    </message>
    <message>
        <source>Micro-batch</source>
        <translation>微批次</translation>
    </message>
    <message>
        <source>Gradient accumulation</source>
        <translation>梯度累积</translation>
    </message>
    <message>
        <source>Techniques</source>
        <translation>技术</translation>
    </message>
    <message>
        <source>&amp;Precision:</source>
        <translation>精度(&amp;P)：</translation>
    </message>
    <message>
        <source>&amp;Micro-batch:</source>
        <translation>微批次(&amp;M)：</translation>
    </message>
    <message>
        <source>&amp;Accumulation:</source>
        <translation>累积(&amp;A)：</translation>
    </message>
    <message>
        <source>&amp;Use recommended plan</source>
        <translation>使用推荐计划(&amp;U)</translation>
    </message>
    <message>
        <source>Recommended</source>
        <translation>推荐</translation>
    </message>
    <message>
        <source>&amp;Verify</source>
        <translation>验证(&amp;V)</translation>
    </message>
    <message>
        <source>Verify the plan with real training steps</source>
        <translation>用真实的训练步骤验证计划</translation>
    </message>
    <message>
        <source>&amp;Stop verifying</source>
        <translation>停止验证(&amp;S)</translation>
    </message>
    <message>
        <source>Verify on this machine</source>
        <translation>在本机上验证</translation>
    </message>
    <message>
        <source>The settings changed since the verification; verify again.</source>
        <translation>验证之后设置已更改，请重新验证。</translation>
    </message>
    <message>
        <source>Effective batch: %1</source>
        <translation>有效批次：%1</translation>
    </message>
    <message>
        <source>Cannot create a temporary folder: %1</source>
        <translation>无法创建临时文件夹：%1</translation>
    </message>
    <message>
        <source>Verifying: preparing a scratch project…</source>
        <translation>正在验证：准备临时项目…</translation>
    </message>
    <message>
        <source>Cancelling after the current probe…</source>
        <translation>将在当前试探结束后取消…</translation>
    </message>
    <message>
        <source>micro-batch %1: fits, measured peak %2</source>
        <translation>微批次 %1：放得下，实测峰值 %2</translation>
    </message>
    <message>
        <source>micro-batch %1: out of memory at %2</source>
        <translation>微批次 %1：在 %2 时内存不足</translation>
    </message>
    <message>
        <source>Verification cancelled; the plan is unchanged.</source>
        <translation>验证已取消，计划未更改。</translation>
    </message>
    <message>
        <source>Verification failed: %1</source>
        <translation>验证失败：%1</translation>
    </message>
    <message>
        <source>Verification: %1</source>
        <translation>验证：%1</translation>
    </message>
    <message>
        <source>Verified: micro-batch %1 × accumulation %2; predicted peak %3, measured %4.</source>
        <translation>已验证：微批次 %1 × 累积 %2；预测峰值 %3，实测 %4。</translation>
    </message>
    <message>
        <source>Verify runs on this machine; choose one of its devices on the Hardware page.</source>
        <translation>验证在本机上运行；请在“硬件”页面选择本机的某个设备。</translation>
    </message>
    <message>
        <source>Verifying: %1 probes done…</source>
        <translation>正在验证：已完成 %1 次试探…</translation>
    </message>
    <message>
        <source>Fine-tuning</source>
        <translation>微调</translation>
    </message>
    <message>
        <source>No recommendation for a pretrained model yet.</source>
        <translation>尚无针对预训练模型的推荐。</translation>
    </message>
    <message>
        <source>Verify needs the planner&apos;s estimate, which does not cover pretrained models yet.</source>
        <translation>验证需要规划器的估算，而它尚不支持预训练模型。</translation>
    </message>
    <message>
        <source>The weights alone take %1 in fp32 (%2 in bf16) of the %3 budget; training adds gradients, optimizer state and activations.</source>
        <translation>仅权重就占用预算 %3 中的 %1（fp32）或 %2（bf16）；训练还需要梯度、优化器状态和激活值。</translation>
    </message>
    <message>
        <source>The memory planner does not estimate pretrained models yet.</source>
        <translation>内存规划器尚不能估算预训练模型。</translation>
    </message>
    <message>
        <source>The memory planner cannot estimate this model: %1</source>
        <translation>内存规划器无法估算此模型：%1</translation>
    </message>
    <message>
        <source>&amp;Techniques</source>
        <translation>技术(&amp;T)</translation>
    </message>
    <message>
        <source>Compare p&amp;lans</source>
        <translation>比较方案(&amp;L)</translation>
    </message>
    <message>
        <source>Model c&amp;hanges</source>
        <translation>模型改动(&amp;H)</translation>
    </message>
    <message>
        <source>Cannot use that plan: %1</source>
        <translation>无法使用该方案：%1</translation>
    </message>
</context>
<context>
    <name>headroom::ui::ModelSizePage</name>
    <message>
        <source>Model size</source>
        <translation>模型大小</translation>
    </message>
    <message>
        <source>Pick a preset or say how many parameters the model should have.</source>
        <translation>选择一个预设，或指定模型应有的参数数量。</translation>
    </message>
    <message>
        <source>Model size preset</source>
        <translation>模型大小预设</translation>
    </message>
    <message>
        <source>Target parameters in millions</source>
        <translation>目标参数量（百万）</translation>
    </message>
    <message>
        <source> million</source>
        <translation> 百万</translation>
    </message>
    <message>
        <source>Context length in tokens</source>
        <translation>上下文长度（词元）</translation>
    </message>
    <message>
        <source> tokens</source>
        <translation> 个词元</translation>
    </message>
    <message>
        <source>Hidden layer widths</source>
        <translation>隐藏层宽度</translation>
    </message>
    <message>
        <source>e.g. 128,64</source>
        <translation>例如 128,64</translation>
    </message>
    <message>
        <source>&amp;Size:</source>
        <translation>大小(&amp;S)：</translation>
    </message>
    <message>
        <source>&amp;Target parameters:</source>
        <translation>目标参数量(&amp;T)：</translation>
    </message>
    <message>
        <source>&amp;Context length:</source>
        <translation>上下文长度(&amp;C)：</translation>
    </message>
    <message>
        <source>&amp;Hidden widths:</source>
        <translation>隐藏层宽度(&amp;H)：</translation>
    </message>
    <message>
        <source>Tiny</source>
        <translation>微型</translation>
    </message>
    <message>
        <source>Small</source>
        <translation>小型</translation>
    </message>
    <message>
        <source>Medium</source>
        <translation>中型</translation>
    </message>
    <message>
        <source>Large</source>
        <translation>大型</translation>
    </message>
    <message>
        <source>%1: %2 layers, %3 heads, width %4</source>
        <translation>%1：%2 层，%3 个注意力头，宽度 %4</translation>
    </message>
    <message>
        <source>Target parameter count</source>
        <translation>目标参数量</translation>
    </message>
    <message>
        <source>Deep</source>
        <translation>深层</translation>
    </message>
    <message>
        <source>%1: hidden widths %2</source>
        <translation>%1：隐藏层宽度 %2</translation>
    </message>
    <message>
        <source>Custom hidden widths</source>
        <translation>自定义隐藏层宽度</translation>
    </message>
    <message>
        <source>Go back and choose a data file first.</source>
        <translation>请先返回并选择数据文件。</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1 parameters&lt;/b&gt;&lt;br&gt;%2</source>
        <translation>&lt;b&gt;%1 个参数&lt;/b&gt;&lt;br&gt;%2</translation>
    </message>
    <message>
        <source>The pretrained model&apos;s size is given; choose how many tokens each training example holds.</source>
        <translation>预训练模型的大小已确定；请选择每个训练样本包含多少词元。</translation>
    </message>
    <message>
        <source>The pretrained encoder&apos;s size is given; choose how many tokens a query or a passage keeps (longer ones are cut).</source>
        <translation>预训练编码器的大小已确定；请选择查询或段落保留多少个词元（更长的会被截断）。</translation>
    </message>
    <message>
        <source>&amp;Mixture of Experts: routed expert MLPs</source>
        <translation>混合专家(&amp;M)：路由的专家 MLP</translation>
    </message>
    <message>
        <source>Each MoE block replaces its MLP by several experts and a router that sends each token to a few of them: more parameters for the same work per token, and more memory.</source>
        <translation>每个 MoE 块用多个专家和一个路由器取代其 MLP，路由器把每个词元发送给其中几个专家：每个词元的计算量不变，参数更多，内存也更多。</translation>
    </message>
    <message>
        <source>Experts per MoE block</source>
        <translation>每个 MoE 块的专家数</translation>
    </message>
    <message>
        <source>Experts each token is routed to</source>
        <translation>每个词元路由到的专家数</translation>
    </message>
    <message>
        <source>Capacity factor</source>
        <translation>容量因子</translation>
    </message>
    <message>
        <source>no limit</source>
        <translation>不限</translation>
    </message>
    <message>
        <source>Tokens an expert takes per sequence, as a multiple of an even share; tokens over it skip the experts (0: no limit).</source>
        <translation>每个专家在每个序列中接收的词元数，以平均份额的倍数表示；超出的词元跳过专家（0：不限）。</translation>
    </message>
    <message>
        <source>MoE in every k-th block</source>
        <translation>每 k 个块一个 MoE 块</translation>
    </message>
    <message>
        <source>E&amp;xperts:</source>
        <translation>专家数(&amp;X)：</translation>
    </message>
    <message>
        <source>Experts &amp;per token (top-k):</source>
        <translation>每个词元的专家数 (top-k)(&amp;P)：</translation>
    </message>
    <message>
        <source>MoE in e&amp;very k-th block:</source>
        <translation>每 k 个块一个 MoE 块(&amp;V)：</translation>
    </message>
    <message>
        <source>Capacit&amp;y factor:</source>
        <translation>容量因子(&amp;Y)：</translation>
    </message>
</context>
<context>
    <name>headroom::ui::ObjectiveBox</name>
    <message>
        <source>Objective</source>
        <translation>目标</translation>
    </message>
    <message>
        <source>DPO: prefer the chosen completion, against the base</source>
        <translation>DPO：偏好被选回答，以基座模型为参照</translation>
    </message>
    <message>
        <source>IPO: DPO with a bounded margin</source>
        <translation>IPO：间隔有界的 DPO</translation>
    </message>
    <message>
        <source>SimPO: length-normalized, no reference model</source>
        <translation>SimPO：按长度归一化，无参考模型</translation>
    </message>
    <message>
        <source>ORPO: learn and prefer in one, no reference model</source>
        <translation>ORPO：学习与偏好合而为一，无参考模型</translation>
    </message>
    <message>
        <source>train.objective: preference tuning learns from each pair which completion people preferred. DPO and IPO compare with the base model (with LoRA: the base with its adapters switched off, no extra memory).</source>
        <translation>train.objective：偏好微调从每个偏好对中学习人们更喜欢哪个回答。DPO 和 IPO 以基座模型为参照（使用 LoRA 时：关闭适配器的基座模型，不占额外内存）。</translation>
    </message>
    <message>
        <source>KTO: desirable and undesirable completions, against the base</source>
        <translation>KTO：期望与不期望的回答，以基座模型为参照</translation>
    </message>
    <message>
        <source>GRPO: sample completions, reinforce the better-rewarded</source>
        <translation>GRPO：采样补全，强化奖励更高的</translation>
    </message>
    <message>
        <source>The file holds prompts without completions, for online RL (GRPO) on a pretrained model: choose &quot;Start from a pretrained model&quot;.</source>
        <translation>该文件包含没有补全的提示，用于在预训练模型上进行在线强化学习（GRPO）：请选择“从预训练模型开始”。</translation>
    </message>
    <message>
        <source>The file holds preference data (&quot;chosen&quot; and &quot;rejected&quot;, or a &quot;label&quot;), which tunes a pretrained model: choose &quot;Start from a pretrained model&quot;.</source>
        <translation>该文件包含偏好数据（&quot;chosen&quot; 和 &quot;rejected&quot;，或 &quot;label&quot;），用于微调预训练模型：请选择“从预训练模型开始”。</translation>
    </message>
</context>
<context>
    <name>headroom::ui::PlanChoiceTable</name>
    <message>
        <source>%1 ms</source>
        <translation>%1 毫秒</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 秒</translation>
    </message>
    <message>
        <source>%1 experts instead of %2</source>
        <translation>%1 个专家而非 %2 个</translation>
    </message>
    <message>
        <source>Top-%1 routing instead of top-%2</source>
        <translation>Top-%1 路由而非 top-%2</translation>
    </message>
    <message>
        <source>Capacity factor %1 instead of none</source>
        <translation>容量因子 %1 而非不限</translation>
    </message>
    <message>
        <source>Capacity factor %1 instead of %2</source>
        <translation>容量因子 %1 而非 %2</translation>
    </message>
    <message>
        <source>Experts in every %1 blocks instead of every %2</source>
        <translation>每 %1 个块一个专家层，而非每 %2 个块</translation>
    </message>
    <message>
        <source>Techniques</source>
        <translation>技术</translation>
    </message>
    <message>
        <source>Batch</source>
        <translation>批</translation>
    </message>
    <message>
        <source>Peak</source>
        <translation>峰值</translation>
    </message>
    <message>
        <source>Speed</source>
        <translation>速度</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>步</translation>
    </message>
    <message>
        <source>Fits</source>
        <translation>可容纳</translation>
    </message>
    <message>
        <source>Change</source>
        <translation>改动</translation>
    </message>
    <message>
        <source>Parameters</source>
        <translation>参数</translation>
    </message>
    <message>
        <source>Plans the planner compared</source>
        <translation>规划器比较过的方案</translation>
    </message>
    <message>
        <source>Changes to the model and their effect</source>
        <translation>模型改动及其效果</translation>
    </message>
    <message>
        <source>Speed is relative to fp32 without techniques at the same micro-batch; batch is micro-batch × accumulation. Marked rows: nothing else is both faster and smaller.</source>
        <translation>速度相对于同一微批下不用任何技术的 fp32；批 = 微批 × 累积。带标记的行：没有其他方案既更快又更小。</translation>
    </message>
    <message>
        <source>Each change alone, with the plan&apos;s techniques and micro-batch. The planner never changes the model itself.</source>
        <translation>每项改动单独计算，使用方案的技术和微批。规划器从不自行修改模型。</translation>
    </message>
    <message>
        <source>Show &amp;every combination</source>
        <translation>显示所有组合(&amp;E)</translation>
    </message>
    <message>
        <source>The settings as they are now</source>
        <translation>当前设置</translation>
    </message>
    <message>
        <source>yes</source>
        <translation>是</translation>
    </message>
    <message>
        <source>no</source>
        <translation>否</translation>
    </message>
    <message>
        <source>Show &amp;every combination (%1)</source>
        <translation>显示所有组合(&amp;E)（%1）</translation>
    </message>
    <message>
        <source>%1 M</source>
        <translation>%1 M</translation>
    </message>
    <message>
        <source>Use this pla&amp;n</source>
        <translation>使用此方案(&amp;N)</translation>
    </message>
    <message>
        <source>Appl&amp;y this change</source>
        <translation>应用此改动(&amp;Y)</translation>
    </message>
</context>
<context>
    <name>headroom::ui::PlanView</name>
    <message>
        <source>Memory plan</source>
        <translation>内存计划</translation>
    </message>
    <message>
        <source>Setting</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>值</translation>
    </message>
    <message>
        <source>Meaning</source>
        <translation>含义</translation>
    </message>
    <message>
        <source>Project settings</source>
        <translation>项目设置</translation>
    </message>
    <message>
        <source>Settings (double-click a value to change it)</source>
        <translation>设置(双击值进行修改)</translation>
    </message>
    <message>
        <source>Default: %1</source>
        <translation>默认值:%1</translation>
    </message>
    <message>
        <source>Saved %1 = %2. New runs use it.</source>
        <translation>已保存 %1 = %2。新的运行将使用它。</translation>
    </message>
    <message>
        <source>Settings are read-only while a run trains.</source>
        <translation>训练期间设置为只读。</translation>
    </message>
    <message>
        <source>Recommended for %1: %2</source>
        <translation>针对 %1 的推荐：%2</translation>
    </message>
    <message>
        <source>No memory estimate: %1</source>
        <translation>无内存估算：%1</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>Compare plans</source>
        <translation>比较方案</translation>
    </message>
    <message>
        <source>Model changes</source>
        <translation>模型改动</translation>
    </message>
    <message>
        <source>Saved %1. New runs use it.</source>
        <translation>已保存 %1。新的运行将使用它。</translation>
    </message>
</context>
<context>
    <name>headroom::ui::PreferencesDialog</name>
    <message>
        <source>Preferences</source>
        <translation>首选项</translation>
    </message>
    <message>
        <source>A new language applies after Headroom restarts.</source>
        <translation>新的语言将在 Headroom 重新启动后生效。</translation>
    </message>
    <message>
        <source>&amp;Language:</source>
        <translation>语言(&amp;L)：</translation>
    </message>
    <message>
        <source>Colour theme</source>
        <translation>配色主题</translation>
    </message>
    <message>
        <source>Follow the system</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <source>Light</source>
        <translation>浅色</translation>
    </message>
    <message>
        <source>Dark</source>
        <translation>深色</translation>
    </message>
    <message>
        <source>&amp;Theme:</source>
        <translation>主题(&amp;T)：</translation>
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
CPU 上分配：%2
GPU 上分配：%3</translation>
    </message>
    <message>
        <source>Wall time on the host, including the operators it called</source>
        <translation>主机上的耗时，包含其调用的算子</translation>
    </message>
    <message>
        <source>Wall time on the host, without the operators it called</source>
        <translation>主机上的耗时，不含其调用的算子</translation>
    </message>
    <message>
        <source>Bytes allocated minus bytes freed while this operator was the innermost one</source>
        <translation>该算子处于最内层时分配的字节数减去释放的字节数</translation>
    </message>
    <message>
        <source>Operator</source>
        <translation>算子</translation>
    </message>
    <message>
        <source>Calls</source>
        <translation>调用次数</translation>
    </message>
    <message>
        <source>Total (ms)</source>
        <translation>总计 (ms)</translation>
    </message>
    <message>
        <source>Self (ms)</source>
        <translation>自身 (ms)</translation>
    </message>
    <message>
        <source>Self share</source>
        <translation>自身占比</translation>
    </message>
    <message>
        <source>Self CPU memory</source>
        <translation>自身 CPU 内存</translation>
    </message>
    <message>
        <source>Self GPU memory</source>
        <translation>自身 GPU 内存</translation>
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
        <translation>要记录的优化器步数；之前的一个预热步不记录</translation>
    </message>
    <message>
        <source>&amp;Profile</source>
        <translation>分析(&amp;P)</translation>
    </message>
    <message>
        <source>Trains a few steps of the project&apos;s settings and measures every operator; no run is recorded</source>
        <translation>按项目设置训练几步并测量每个算子；不会记录为一次训练</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Save &amp;Trace…</source>
        <translation>保存跟踪(&amp;T)…</translation>
    </message>
    <message>
        <source>A Chrome trace of the profiled steps, for chrome://tracing or ui.perfetto.dev</source>
        <translation>所分析步骤的 Chrome 跟踪文件，可在 chrome://tracing 或 ui.perfetto.dev 中打开</translation>
    </message>
    <message>
        <source>Steps:</source>
        <translation>步数：</translation>
    </message>
    <message>
        <source>Module</source>
        <translation>模块</translation>
    </message>
    <message>
        <source>Held for backward</source>
        <translation>为反向传播保留</translation>
    </message>
    <message>
        <source>Share</source>
        <translation>占比</translation>
    </message>
    <message>
        <source>Time (ms)</source>
        <translation>时间 (ms)</translation>
    </message>
    <message>
        <source>Calls</source>
        <translation>调用次数</translation>
    </message>
    <message>
        <source>Bytes allocated inside the module during the largest forward pass and still alive when it ended</source>
        <translation>在最大的一次前向传播中于该模块内分配、且在前向结束时仍存活的字节数</translation>
    </message>
    <message>
        <source>Profile a few training steps of this project&apos;s settings.</source>
        <translation>按此项目的设置分析几个训练步。</translation>
    </message>
    <message>
        <source>Open or create a project first.</source>
        <translation>请先打开或创建一个项目。</translation>
    </message>
    <message>
        <source>A run is training this project: profile it when the run has ended.</source>
        <translation>有一次训练正在使用此项目：请在训练结束后再分析。</translation>
    </message>
    <message>
        <source>A profile is already running.</source>
        <translation>性能分析已在进行中。</translation>
    </message>
    <message>
        <source>No profile yet. A profile trains the project&apos;s settings for a few steps (nothing is recorded as a run) and shows where the time and the memory go.</source>
        <translation>尚无分析结果。性能分析会按项目设置训练几步（不会记录为一次训练），并显示时间和内存花在了哪里。</translation>
    </message>
    <message>
        <source>Profiled steps: %1 (after %2 of warm-up) on %3 · %4 ms per step · micro-batch %5 × %6</source>
        <translation>分析步数：%1（预热 %2 步之后），设备 %3 · 每步 %4 ms · 微批次 %5 × %6</translation>
    </message>
    <message>
        <source>Held for backward: %1 at the end of the largest forward pass (of %2)</source>
        <translation>为反向传播保留：最大一次前向传播结束时 %1（共 %2 次）</translation>
    </message>
    <message>
        <source> (the trainer measured %1 of activations in its first step)</source>
        <translation>（训练器在第一步测得激活占用 %1）</translation>
    </message>
    <message>
        <source>Profile first: there is no trace yet.</source>
        <translation>请先进行分析：尚无跟踪数据。</translation>
    </message>
    <message>
        <source>Save Trace</source>
        <translation>保存跟踪</translation>
    </message>
    <message>
        <source>Chrome trace (*.json)</source>
        <translation>Chrome 跟踪文件 (*.json)</translation>
    </message>
    <message>
        <source>Trace saved to %1: open it in chrome://tracing or ui.perfetto.dev.</source>
        <translation>跟踪已保存到 %1：请在 chrome://tracing 或 ui.perfetto.dev 中打开。</translation>
    </message>
</context>
<context>
    <name>headroom::ui::RetrievalTryPanel</name>
    <message>
        <source>Query</source>
        <translation>查询</translation>
    </message>
    <message>
        <source>What a user would search for</source>
        <translation>用户会搜索的内容</translation>
    </message>
    <message>
        <source>&amp;Query:</source>
        <translation>查询(&amp;Q)：</translation>
    </message>
    <message>
        <source>Passages, one per line</source>
        <translation>段落，每行一个</translation>
    </message>
    <message>
        <source>One passage per line: the documents to rank</source>
        <translation>每行一个段落：要排序的文档</translation>
    </message>
    <message>
        <source>&amp;Passages (one per line):</source>
        <translation>段落（每行一个）(&amp;P)：</translation>
    </message>
    <message>
        <source>&amp;Rank</source>
        <translation>排序(&amp;R)</translation>
    </message>
    <message>
        <source>Score every passage against the query (Return in the query)</source>
        <translation>根据查询为每个段落打分（在查询框中按回车）</translation>
    </message>
    <message>
        <source>Locate &amp;Base Model…</source>
        <translation>定位基础模型(&amp;B)…</translation>
    </message>
    <message>
        <source>#</source>
        <translation>#</translation>
    </message>
    <message>
        <source>Score</source>
        <translation>得分</translation>
    </message>
    <message>
        <source>Passage</source>
        <translation>段落</translation>
    </message>
    <message>
        <source>Passages ranked by score</source>
        <translation>按得分排序的段落</translation>
    </message>
    <message>
        <source>Term</source>
        <translation>词项</translation>
    </message>
    <message>
        <source>Contribution</source>
        <translation>贡献</translation>
    </message>
    <message>
        <source>Terms the passage shares with the query</source>
        <translation>段落与查询共有的词项</translation>
    </message>
    <message>
        <source>Query weight × passage weight of each term both have; they add up to the score</source>
        <translation>每个共有词项的查询权重 × 段落权重；它们之和即为得分</translation>
    </message>
    <message>
        <source>Weight</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>The query&apos;s top terms</source>
        <translation>查询的主要词项</translation>
    </message>
    <message>
        <source>The largest weights of the query&apos;s sparse vector: the vocabulary terms it expands to</source>
        <translation>查询稀疏向量中权重最大的项：它扩展到的词表词项</translation>
    </message>
    <message>
        <source>Ranking:</source>
        <translation>排名：</translation>
    </message>
    <message>
        <source>Shared terms:</source>
        <translation>共有词项：</translation>
    </message>
    <message>
        <source>Query terms:</source>
        <translation>查询词项：</translation>
    </message>
    <message>
        <source>A ranking is already running.</source>
        <translation>已有排序正在运行。</translation>
    </message>
    <message>
        <source>Choose the weights to rank with first.</source>
        <translation>请先选择用于排序的权重。</translation>
    </message>
    <message>
        <source>Type a query first: the passages are ranked against it.</source>
        <translation>请先输入查询：段落将据此排序。</translation>
    </message>
    <message>
        <source>Add at least one passage to rank, one per line.</source>
        <translation>请至少添加一个要排序的段落，每行一个。</translation>
    </message>
    <message numerus="yes">
        <source>Loading the base model and ranking %n passages…</source>
        <translation>
            <numerusform>正在加载基础模型并对 %n 个段落排序…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Loading the weights of run %1 and ranking %n passages…</source>
        <translation>
            <numerusform>正在加载运行 %1 的权重并对 %n 个段落排序…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Ranked %n passages with the base model as imported.</source>
        <translation>
            <numerusform>已用导入的基础模型对 %n 个段落排序。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Ranked %n passages with run %1 at step %2.</source>
        <translation>
            <numerusform>已用运行 %1（第 %2 步）对 %n 个段落排序。</numerusform>
        </translation>
    </message>
    <message>
        <source>Passage ranked %1 shares no term with the query.</source>
        <translation>排名第 %1 的段落与查询没有共有词项。</translation>
    </message>
    <message>
        <source>Terms passage ranked %1 shares with the query (the largest %2: %3 % of its score):</source>
        <translation>排名第 %1 的段落与查询共有的词项（最大的 %2 个：占其得分的 %3 %）：</translation>
    </message>
    <message>
        <source>Terms passage ranked %1 shares with the query:</source>
        <translation>排名第 %1 的段落与查询共有的词项：</translation>
    </message>
</context>
<context>
    <name>headroom::ui::ReviewPage</name>
    <message>
        <source>Review and save</source>
        <translation>检查并保存</translation>
    </message>
    <message>
        <source>These settings go into the project file. You can change them later on the Plan tab.</source>
        <translation>这些设置将写入项目文件。之后可以在“计划”标签页中修改。</translation>
    </message>
    <message>
        <source>Project settings</source>
        <translation>项目设置</translation>
    </message>
    <message>
        <source>Project file</source>
        <translation>项目文件</translation>
    </message>
    <message>
        <source>Where to save the project (.headroom)</source>
        <translation>项目的保存位置（.headroom）</translation>
    </message>
    <message>
        <source>B&amp;rowse…</source>
        <translation>浏览(&amp;R)…</translation>
    </message>
    <message>
        <source>Choose where to save the project</source>
        <translation>选择项目的保存位置</translation>
    </message>
    <message>
        <source>&amp;Project file:</source>
        <translation>项目文件(&amp;P)：</translation>
    </message>
    <message>
        <source>&amp;Settings:</source>
        <translation>设置(&amp;S)：</translation>
    </message>
    <message>
        <source>Save Project As</source>
        <translation>项目另存为</translation>
    </message>
    <message>
        <source>Headroom projects (*.headroom)</source>
        <translation>Headroom 项目 (*.headroom)</translation>
    </message>
    <message>
        <source>Checking the data file and creating the project…</source>
        <translation>正在检查数据文件并创建项目…</translation>
    </message>
    <message>
        <source>Checking the base model and the data file, creating the project…</source>
        <translation>正在检查基础模型和数据文件并创建项目…</translation>
    </message>
    <message>
        <source>What it is: %1</source>
        <translation>项目类型：%1</translation>
    </message>
    <message>
        <source>a pretrained masked language model fine-tuned as a SPLADE retrieval encoder (%1)</source>
        <translation>预训练的掩码语言模型，微调为 SPLADE 检索编码器（%1）</translation>
    </message>
    <message>
        <source>a pretrained causal language model, fine-tuned (%1)</source>
        <translation>预训练的因果语言模型，进行微调（%1）</translation>
    </message>
    <message>
        <source>a new GPT language model, trained from scratch</source>
        <translation>新的 GPT 语言模型，从零训练</translation>
    </message>
    <message>
        <source>a new tabular model, trained from scratch</source>
        <translation>新的表格模型，从零训练</translation>
    </message>
    <message>
        <source>a pretrained causal language model, tuned on preference pairs with %1 (%2)</source>
        <translation>预训练因果语言模型，用 %1 在偏好对上微调（%2）</translation>
    </message>
    <message>
        <source>a pretrained causal language model, trained with GRPO on its own sampled completions and their rewards (%1)</source>
        <translation>一个预训练的因果语言模型，用 GRPO 在其自身采样的补全及其奖励上训练（%1）</translation>
    </message>
</context>
<context>
    <name>headroom::ui::RewardField</name>
    <message>
        <source>Reward</source>
        <translation>奖励</translation>
    </message>
    <message>
        <source>e.g. exact:answer,regex:&lt;/think&gt;*0.2</source>
        <translation>例如 exact:answer,regex:&lt;/think&gt;*0.2</translation>
    </message>
    <message>
        <source>grpo.reward: what a sampled completion earns, terms separated by commas, each KIND:ARGUMENT*WEIGHT. regex:PATTERN 1 when found; format:PATTERN 1 when the whole completion matches; exact:FIELD 1 when its final number equals the record&apos;s FIELD; length:N 1 at N tokens; command:CMD a program reading JSON lines, printing one reward per line.</source>
        <translation>grpo.reward：采样补全获得的奖励，各项以逗号分隔，每项为 类型:参数*权重。regex:模式 找到时为 1；format:模式 整个补全匹配时为 1；exact:字段 最后一个数字等于记录中该字段时为 1；length:N 在 N 个 token 时为 1；command:命令 读取 JSON 行、每行输出一个奖励的程序。</translation>
    </message>
    <message>
        <source>Each prompt gets a group of sampled completions; the better-rewarded ones in its group are reinforced.</source>
        <translation>每个提示得到一组采样补全；组内奖励较高的补全会被强化。</translation>
    </message>
    <message>
        <source>&amp;Reward:</source>
        <translation>奖励(&amp;R)：</translation>
    </message>
</context>
<context>
    <name>headroom::ui::RunsPanel</name>
    <message>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>paused</source>
        <translation>已暂停</translation>
    </message>
    <message>
        <source>finished</source>
        <translation>已完成</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>interrupted</source>
        <translation>已中断</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Steps</source>
        <translation>步数</translation>
    </message>
    <message>
        <source>Loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <source>Val. loss</source>
        <translation>验证损失</translation>
    </message>
    <message>
        <source>Peak memory</source>
        <translation>峰值内存</translation>
    </message>
    <message>
        <source>OOM recoveries</source>
        <translation>OOM 恢复</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>设备</translation>
    </message>
    <message>
        <source>Runs</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>recipe %1 · data %2</source>
        <translation>配方 %1 · 数据 %2</translation>
    </message>
    <message>
        <source>Started %1</source>
        <translation>开始于 %1</translation>
    </message>
    <message>
        <source>No runs yet. Press Start (F5), or train from a terminal with
headroom-cli train &quot;%1&quot;</source>
        <translation>尚无运行。按“开始”(F5),或在终端中训练:
headroom-cli train &quot;%1&quot;</translation>
    </message>
    <message>
        <source>Techniques</source>
        <translation>技术</translation>
    </message>
    <message>
        <source>accuracy %1 %</source>
        <translation>准确率 %1 %</translation>
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
        <translation>（最佳：第 %1 步）</translation>
    </message>
    <message>
        <source>Validation</source>
        <translation>验证</translation>
    </message>
    <message>
        <source>pretrained %1 · data %2</source>
        <translation>预训练 %1 · 数据 %2</translation>
    </message>
    <message>
        <source>MRR@10 %1 · Recall@100 %2</source>
        <translation>MRR@10 %1 · Recall@100 %2</translation>
    </message>
    <message>
        <source>pretrained %1 · %2 on preference pairs · data %3</source>
        <translation>预训练 %1 · 偏好对上的 %2 · 数据 %3</translation>
    </message>
    <message>
        <source>reward accuracy %1 %</source>
        <translation>奖励准确率 %1 %</translation>
    </message>
    <message>
        <source>mean reward %1</source>
        <translation>平均奖励 %1</translation>
    </message>
    <message>
        <source>pretrained %1 · GRPO on sampled completions · data %2</source>
        <translation>预训练 %1 · 基于采样补全的 GRPO · 数据 %2</translation>
    </message>
</context>
<context>
    <name>headroom::ui::SessionController</name>
    <message>
        <source>Starting…</source>
        <translation>正在启动…</translation>
    </message>
</context>
<context>
    <name>headroom::ui::ShardSizeDialog</name>
    <message>
        <source>Export as Hugging Face Folder</source>
        <translation>导出为 Hugging Face 文件夹</translation>
    </message>
    <message>
        <source>Weights larger than this are split into several files with an index, as save_pretrained splits them</source>
        <translation>大于此值的权重会像 save_pretrained 一样拆分为带索引的多个文件</translation>
    </message>
    <message>
        <source>Bytes or a number with a unit: 500MB, 5GB, 2GiB (GB = 10⁹ bytes, GiB = 2³⁰ bytes). 5GB is what Transformers uses.</source>
        <translation>字节数或带单位的数字：500MB、5GB、2GiB（GB = 10⁹ 字节，GiB = 2³⁰ 字节）。Transformers 使用 5GB。</translation>
    </message>
    <message>
        <source>&amp;Largest weight file:</source>
        <translation>最大权重文件(&amp;L)：</translation>
    </message>
    <message>
        <source>&amp;Export</source>
        <translation>导出(&amp;E)</translation>
    </message>
    <message>
        <source>“%1” is not a size above zero: give bytes or a number with a unit (500MB, 5GB, 2GiB).</source>
        <translation>“%1”不是大于零的大小：请给出字节数或带单位的数字（500MB、5GB、2GiB）。</translation>
    </message>
</context>
<context>
    <name>headroom::ui::TokenChips</name>
    <message>
        <source>id %1 · piece “%2”</source>
        <translation>ID %1 · 片段“%2”</translation>
    </message>
    <message>
        <source>special token</source>
        <translation>特殊词元</translation>
    </message>
    <message>
        <source>prompt (not learned)</source>
        <translation>提示（不参与学习）</translation>
    </message>
</context>
<context>
    <name>headroom::ui::TokenPreviewPanel</name>
    <message>
        <source>Tokens of a sample:</source>
        <translation>样例的词元：</translation>
    </message>
    <message>
        <source>Previous sample</source>
        <translation>上一个样例</translation>
    </message>
    <message>
        <source>Next sample</source>
        <translation>下一个样例</translation>
    </message>
    <message>
        <source>Tokens of the sample</source>
        <translation>该样例的词元</translation>
    </message>
    <message>
        <source>No line of the file holds text to tokenize.</source>
        <translation>文件中没有可分词的文本行。</translation>
    </message>
    <message numerus="yes">
        <source>line %1 · %n tokens</source>
        <translation>
            <numerusform>第 %1 行 · %n 个词元</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source> (%n in the prompt)</source>
        <translation>
            <numerusform>（提示中 %n 个）</numerusform>
        </translation>
    </message>
    <message>
        <source>, the first %1 shown</source>
        <translation>，显示前 %1 个</translation>
    </message>
    <message numerus="yes">
        <source>%n records read</source>
        <translation>
            <numerusform>已读取 %n 条记录</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n lines read</source>
        <translation>
            <numerusform>已读取 %n 行</numerusform>
        </translation>
    </message>
    <message>
        <source> (the whole file)</source>
        <translation>（整个文件）</translation>
    </message>
    <message>
        <source> (the first %1)</source>
        <translation>（前 %1）</translation>
    </message>
    <message>
        <source>tokens per record: mean %1 · median %2 · p95 %3 · max %4</source>
        <translation>每条记录的词元数：平均 %1 · 中位数 %2 · p95 %3 · 最大 %4</translation>
    </message>
    <message>
        <source>tokens per line: mean %1 · median %2 · p95 %3 · max %4</source>
        <translation>每行词元数：平均 %1 · 中位数 %2 · p95 %3 · 最大 %4</translation>
    </message>
    <message>
        <source>%1 characters per token</source>
        <translation>每个词元 %1 个字符</translation>
    </message>
    <message>
        <source>All fit the context of %1 tokens (model.seq_len).</source>
        <translation>全部都在 %1 个词元的上下文长度内（model.seq_len）。</translation>
    </message>
    <message numerus="yes">
        <source>%n records longer than the context of %1 tokens (model.seq_len): training cuts them there.</source>
        <translation>
            <numerusform>%n 条记录超过 %1 个词元的上下文长度（model.seq_len）：训练时会在此处截断。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n lines longer than the context of %1 tokens (model.seq_len): training splits them over several windows.</source>
        <translation>
            <numerusform>%n 行超过 %1 个词元的上下文长度（model.seq_len）：训练时会拆分到多个窗口中。</numerusform>
        </translation>
    </message>
    <message>
        <source>The %1 tokenizer was trained on these lines for the preview; the project trains it on the whole file.</source>
        <translation>%1 分词器仅用这些行训练以供预览；项目会用整个文件训练它。</translation>
    </message>
    <message>
        <source>Padding: %1 of the tokens computed with one record per row (each batch padded to its longest), %2 with the records packed side by side.</source>
        <translation>填充:每行一条记录(每个批次填充到其最长者)时占计算词元的 %1,记录并排打包时为 %2。</translation>
    </message>
    <message>
        <source> · rejected completion</source>
        <translation> · 被拒回答</translation>
    </message>
    <message>
        <source> · chosen completion</source>
        <translation> · 被选回答</translation>
    </message>
    <message numerus="yes">
        <source>%n preference pairs read</source>
        <translation>
            <numerusform>已读取 %n 个偏好对</numerusform>
        </translation>
    </message>
    <message>
        <source>tokens per sequence (prompt and chosen or rejected completion): mean %1 · median %2 · p95 %3 · max %4</source>
        <translation>每条序列（提示加被选或被拒回答）的词元数：平均 %1 · 中位数 %2 · p95 %3 · 最大 %4</translation>
    </message>
    <message numerus="yes">
        <source>%n sequences longer than the context of %1 tokens (model.seq_len): training cuts their completions there.</source>
        <translation>
            <numerusform>%n 条序列超过 %1 个词元的上下文（model.seq_len）：训练会在该处截断其回答。</numerusform>
        </translation>
    </message>
    <message>
        <source>Padding: %1 of the tokens computed, each sequence a row padded to the longest of its batch (pairs are not packed).</source>
        <translation>填充：计算的词元中 %1 为填充，每条序列占一行，补齐到所在批次中最长的一条（偏好对不打包）。</translation>
    </message>
</context>
<context>
    <name>headroom::ui::TryView</name>
    <message>
        <source>&amp;Weights:</source>
        <translation>权重(&amp;W)：</translation>
    </message>
    <message>
        <source>Prompt</source>
        <translation>提示词</translation>
    </message>
    <message>
        <source>The text the model continues</source>
        <translation>模型要续写的文本</translation>
    </message>
    <message>
        <source>Pro&amp;mpt:</source>
        <translation>提示词(&amp;M)：</translation>
    </message>
    <message>
        <source>model default</source>
        <translation>模型默认</translation>
    </message>
    <message>
        <source>Model default: the model folder&apos;s generation_config.json (greedy decoding when it does not sample)</source>
        <translation>模型默认：模型文件夹中的 generation_config.json（不采样时为贪心解码）</translation>
    </message>
    <message>
        <source>Maximum new tokens</source>
        <translation>最大新词元数</translation>
    </message>
    <message>
        <source>Temperature</source>
        <translation>温度</translation>
    </message>
    <message>
        <source>0 = greedy decoding</source>
        <translation>0 = 贪心解码</translation>
    </message>
    <message>
        <source>Top-k</source>
        <translation>Top-k</translation>
    </message>
    <message>
        <source>0 = off</source>
        <translation>0 = 关闭</translation>
    </message>
    <message>
        <source>Top-p</source>
        <translation>Top-p</translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>种子</translation>
    </message>
    <message>
        <source>Ge&amp;nerate</source>
        <translation>生成(&amp;N)</translation>
    </message>
    <message>
        <source>Continue the prompt (Ctrl+Return in the prompt)</source>
        <translation>续写提示词（在提示词中按 Ctrl+Return）</translation>
    </message>
    <message>
        <source>St&amp;op</source>
        <translation>停止(&amp;O)</translation>
    </message>
    <message>
        <source>Stop after the current token</source>
        <translation>在当前词元之后停止</translation>
    </message>
    <message>
        <source>Ma&amp;x. new tokens:</source>
        <translation>最大新词元数(&amp;X)：</translation>
    </message>
    <message>
        <source>T&amp;emperature:</source>
        <translation>温度(&amp;E)：</translation>
    </message>
    <message>
        <source>Top-&amp;k:</source>
        <translation>Top-k(&amp;K)：</translation>
    </message>
    <message>
        <source>See&amp;d:</source>
        <translation>种子(&amp;D)：</translation>
    </message>
    <message>
        <source>Top-p:</source>
        <translation>Top-p：</translation>
    </message>
    <message>
        <source>Generated text</source>
        <translation>生成的文本</translation>
    </message>
    <message>
        <source>The prompt and its continuation appear here.</source>
        <translation>提示词及其续写将显示在这里。</translation>
    </message>
    <message>
        <source>Output:</source>
        <translation>输出：</translation>
    </message>
    <message>
        <source>Open a project to try its model.</source>
        <translation>打开一个项目以试用其模型。</translation>
    </message>
    <message>
        <source>Run %1 · step %2 · %3</source>
        <translation>运行 %1 · 第 %2 步 · %3</translation>
    </message>
    <message>
        <source>Base model as imported (%1)</source>
        <translation>导入时的基础模型（%1）</translation>
    </message>
    <message>
        <source>Only language models generate text: this project trains a tabular model.</source>
        <translation>只有语言模型才能生成文本：此项目训练的是表格模型。</translation>
    </message>
    <message>
        <source>No run has a checkpoint yet: train a run (F5), then try its weights here.</source>
        <translation>还没有运行有检查点：先训练一次运行（F5），然后在这里试用其权重。</translation>
    </message>
    <message>
        <source>A generation is already running.</source>
        <translation>已有生成正在进行。</translation>
    </message>
    <message>
        <source>Type a prompt first: the model continues it.</source>
        <translation>请先输入提示词：模型会续写它。</translation>
    </message>
    <message>
        <source>Loading the base model…</source>
        <translation>正在加载基础模型…</translation>
    </message>
    <message>
        <source>Loading the weights of run %1…</source>
        <translation>正在加载运行 %1 的权重…</translation>
    </message>
    <message>
        <source>Stopping…</source>
        <translation>正在停止…</translation>
    </message>
    <message>
        <source>Generating with the base model…</source>
        <translation>正在用基础模型生成…</translation>
    </message>
    <message>
        <source>Generating with run %1…</source>
        <translation>正在用运行 %1 生成…</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>ended at an end-of-text token</source>
        <translation>在文本结束词元处结束</translation>
    </message>
    <message>
        <source>reached the token limit</source>
        <translation>达到词元上限</translation>
    </message>
    <message>
        <source>%1 new tokens in %2 s (%3 tokens/s); %4.</source>
        <translation>%2 秒内生成 %1 个新词元（%3 词元/秒）；%4。</translation>
    </message>
    <message>
        <source>Locate &amp;Base Model…</source>
        <translation>定位基础模型(&amp;B)…</translation>
    </message>
    <message>
        <source>Weights to try</source>
        <translation>要试用的权重</translation>
    </message>
    <message>
        <source>Continue a text or chat</source>
        <translation>续写文本或聊天</translation>
    </message>
    <message>
        <source>Continue text</source>
        <translation>续写文本</translation>
    </message>
    <message>
        <source>Chat</source>
        <translation>聊天</translation>
    </message>
    <message>
        <source>Chat renders the conversation with the project&apos;s chat template (data.chat_template, else the base model&apos;s)</source>
        <translation>聊天会用项目的聊天模板（data.chat_template，否则为基础模型的模板）渲染对话</translation>
    </message>
    <message>
        <source>Try a&amp;s:</source>
        <translation>试用方式(&amp;S)：</translation>
    </message>
</context>
<context>
    <name>headroom::ui::plots::ExpertLoadPlot</name>
    <message>
        <source>Expert Load</source>
        <translation>专家负载</translation>
    </message>
    <message>
        <source>step</source>
        <translation>步</translation>
    </message>
    <message>
        <source>MoE block</source>
        <translation>MoE 块</translation>
    </message>
    <message>
        <source>expert load</source>
        <translation>专家负载</translation>
    </message>
    <message>
        <source>share of assignments</source>
        <translation>分配占比</translation>
    </message>
    <message>
        <source>block %1</source>
        <translation>块 %1</translation>
    </message>
    <message>
        <source>MoE block, %1 experts each</source>
        <translation>MoE 块，每块 %1 个专家</translation>
    </message>
    <message>
        <source>Step %1, block %2, expert %3: %4% of the assignments (balanced: %5%)</source>
        <translation>第 %1 步，块 %2，专家 %3：占分配的 %4%（均衡：%5%）</translation>
    </message>
</context>
<context>
    <name>headroom::ui::plots::GrpoPlot</name>
    <message>
        <source>Rewards</source>
        <translation>奖励</translation>
    </message>
    <message>
        <source>step</source>
        <translation>步</translation>
    </message>
    <message>
        <source>reward</source>
        <translation>奖励</translation>
    </message>
    <message>
        <source>completion length (tokens)</source>
        <translation>补全长度（token）</translation>
    </message>
    <message>
        <source>mean reward</source>
        <translation>平均奖励</translation>
    </message>
    <message>
        <source>reward spread in groups</source>
        <translation>组内奖励离散度</translation>
    </message>
    <message>
        <source>completion length</source>
        <translation>补全长度</translation>
    </message>
</context>
<context>
    <name>headroom::ui::plots::LossPlot</name>
    <message>
        <source>Loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <source>step</source>
        <translation>步</translation>
    </message>
    <message>
        <source>loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <source>training</source>
        <translation>训练</translation>
    </message>
    <message>
        <source>training (smoothed)</source>
        <translation>训练(平滑)</translation>
    </message>
    <message>
        <source>validation</source>
        <translation>验证</translation>
    </message>
</context>
<context>
    <name>headroom::ui::plots::MemoryPlot</name>
    <message>
        <source>Out-of-memory recovery at step %1: micro-batch %2 → %3, accumulation %4</source>
        <translation>第 %1 步内存不足恢复:微批次 %2 → %3,累积 %4</translation>
    </message>
    <message>
        <source>Memory ladder at step %1</source>
        <translation>第 %1 步内存阶梯</translation>
    </message>
    <message>
        <source>Validation backed off at step %1</source>
        <translation>第 %1 步验证回退</translation>
    </message>
    <message>
        <source>Memory keeps growing (step %1)</source>
        <translation>内存持续增长(第 %1 步)</translation>
    </message>
    <message>
        <source>Out of memory at step %1: the run paused</source>
        <translation>第 %1 步内存不足:运行已暂停</translation>
    </message>
    <message>
        <source>Live at failure: %1</source>
        <translation>失败时占用:%1</translation>
    </message>
    <message>
        <source>Device: %1</source>
        <translation>设备:%1</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <source>step</source>
        <translation>步</translation>
    </message>
    <message>
        <source>MiB</source>
        <translation>MiB</translation>
    </message>
    <message>
        <source>live after step</source>
        <translation>步后占用</translation>
    </message>
    <message>
        <source>peak during step</source>
        <translation>步内峰值</translation>
    </message>
    <message>
        <source>out-of-memory recovery</source>
        <translation>内存不足恢复</translation>
    </message>
    <message>
        <source>back-off or ladder rung</source>
        <translation>回退或阶梯</translation>
    </message>
    <message>
        <source>warning</source>
        <translation>警告</translation>
    </message>
    <message>
        <source>budget %1</source>
        <translation>预算 %1</translation>
    </message>
    <message>
        <source>reserved by the allocator</source>
        <translation>分配器保留</translation>
    </message>
    <message>
        <source>Out of memory on %1 at step %2: the run moved to the CPU</source>
        <translation>第 %2 步 %1 内存不足：运行已移到 CPU</translation>
    </message>
    <message>
        <source>↑ budget %1, above this scale</source>
        <translation>↑ 预算 %1，超出此刻度</translation>
    </message>
</context>
<context>
    <name>headroom::ui::plots::PreferencePlot</name>
    <message>
        <source>Rewards</source>
        <translation>奖励</translation>
    </message>
    <message>
        <source>step</source>
        <translation>步</translation>
    </message>
    <message>
        <source>reward</source>
        <translation>奖励</translation>
    </message>
    <message>
        <source>pairs ranked right</source>
        <translation>排序正确的偏好对</translation>
    </message>
    <message>
        <source>chosen reward</source>
        <translation>被选回答的奖励</translation>
    </message>
    <message>
        <source>rejected reward</source>
        <translation>被拒回答的奖励</translation>
    </message>
    <message>
        <source>reward margin</source>
        <translation>奖励间隔</translation>
    </message>
    <message>
        <source>reward accuracy</source>
        <translation>奖励准确率</translation>
    </message>
</context>
<context>
    <name>headroom::ui::plots::RankPlot</name>
    <message>
        <source>Ranks</source>
        <translation>各 rank</translation>
    </message>
    <message>
        <source>step</source>
        <translation>步</translation>
    </message>
    <message>
        <source>peak memory (MiB)</source>
        <translation>峰值内存 (MiB)</translation>
    </message>
    <message>
        <source>rank %1 memory</source>
        <translation>rank %1 内存</translation>
    </message>
    <message>
        <source>rank %1 samples/s</source>
        <translation>rank %1 样本/秒</translation>
    </message>
    <message>
        <source>samples/s</source>
        <translation>样本/秒</translation>
    </message>
</context>
<context>
    <name>headroom::ui::plots::RetrievalQualityPlot</name>
    <message>
        <source>Retrieval quality</source>
        <translation>检索质量</translation>
    </message>
    <message>
        <source>step</source>
        <translation>步</translation>
    </message>
    <message>
        <source>validation score</source>
        <translation>验证得分</translation>
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
        <translation>稀疏度</translation>
    </message>
    <message>
        <source>step</source>
        <translation>步</translation>
    </message>
    <message>
        <source>FLOPS</source>
        <translation>FLOPS</translation>
    </message>
    <message>
        <source>non-zero weights</source>
        <translation>非零权重</translation>
    </message>
    <message>
        <source>FLOPS queries</source>
        <translation>FLOPS 查询</translation>
    </message>
    <message>
        <source>FLOPS passages</source>
        <translation>FLOPS 段落</translation>
    </message>
    <message>
        <source>non-zeros per query</source>
        <translation>每个查询的非零项</translation>
    </message>
    <message>
        <source>non-zeros per passage</source>
        <translation>每个段落的非零项</translation>
    </message>
</context>
<context>
    <name>headroom::ui::plots::RoutingPlot</name>
    <message>
        <source>Routing</source>
        <translation>路由</translation>
    </message>
    <message>
        <source>step</source>
        <translation>步</translation>
    </message>
    <message>
        <source>dropped %</source>
        <translation>丢弃 %</translation>
    </message>
    <message>
        <source>loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <source>dropped assignments</source>
        <translation>丢弃的分配</translation>
    </message>
    <message>
        <source>balancing loss</source>
        <translation>负载均衡损失</translation>
    </message>
    <message>
        <source>router z-loss</source>
        <translation>路由 z 损失</translation>
    </message>
</context>
<context>
    <name>headroom::ui::plots::ThroughputPlot</name>
    <message>
        <source>Throughput</source>
        <translation>吞吐量</translation>
    </message>
    <message>
        <source>step</source>
        <translation>步</translation>
    </message>
    <message>
        <source>tokens/s</source>
        <translation>词元/秒</translation>
    </message>
    <message>
        <source>throughput</source>
        <translation>吞吐量</translation>
    </message>
    <message>
        <source>samples/s</source>
        <translation>样本/秒</translation>
    </message>
</context>
<context>
    <name>main</name>
    <message>
        <source>Train real models on modest hardware without out-of-memory errors.</source>
        <translation>在普通硬件上训练真实模型，不再出现内存不足错误。</translation>
    </message>
    <message>
        <source>Start, show the main window once, and exit 0.</source>
        <translation>启动，显示一次主窗口，然后以 0 退出。</translation>
    </message>
    <message>
        <source>Project file to open.</source>
        <translation>要打开的项目文件。</translation>
    </message>
</context>
</TS>
