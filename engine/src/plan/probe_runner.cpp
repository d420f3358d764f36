#include "plan/probe_runner.h"

#include "device/resolve_device.h"
#include "memory/oom.h"
#include "models/keyed_dropout.h"
#include "plan/model_facts.h"
#include "train/lora_setup.h"
#include "train/training_run.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <mutex>
#include <sstream>

namespace headroom::plan {

namespace {

void ignoreProgress(const std::string &) {}

bool isHostContiguous(const torch::Tensor &tensor) {
    return tensor.device().is_cpu() && tensor.is_contiguous();
}

} // namespace

ProbeRunner::BudgetRelease::~BudgetRelease() {
    if (!meter) {
        return;
    }
    try {
        meter->applyBudget(0);
    } catch (const std::exception &) {
        // Removing a budget that could be applied does not fail; nothing to report here.
    }
}

ProbeRunner::ProbeRunner(const Config &config, Project &project) : config_(config) {
    device_ = device::resolveDevice(config_.text("device"));
    budget_ = config_.bytes("memory.budget");
    release_.meter = train::makeBudgetedMeter(config_, device_);
    techniques_ = train::checkedTechniques(config_, device_);
    data_ = train::prepareData(config_, project, ignoreProgress);

    torch::manual_seed(static_cast<std::uint64_t>(config_.integer("train.seed")));
    recipe_ = train::makeRecipe(config_, data_, device_);
    train::setUpLora(config_, project, *recipe_, false, ignoreProgress);
    train::applyCheckpointing(*recipe_, techniques_, config_);
    optimizer_ =
        train::makeOptimizer(*recipe_, techniques_, train::adamwOptionsFromConfig(config_));

    const data::TabularSchema *schema = data_.schema ? &*data_.schema : nullptr;
    stream_ = std::make_unique<data::ExampleStream>(data_.spec, data::Split::Train,
                                                    data_.tokenizer.get(), schema);
    stream_start_ = stream_->saveState();
    snapshot();
}

ProbeRunner::~ProbeRunner() = default;

ModelFacts ProbeRunner::facts() const {
    if (data_.base) {
        return baseFacts(*data_.base);
    }
    if (data_.tokenizer) {
        return gptFacts(data_.tokenizer->vocabSize());
    }
    return tabularFacts(*data_.schema);
}

FitProbe ProbeRunner::probe(std::int64_t micro_batch, std::int64_t micro_batches) {
    FitProbe result;
    result.micro_batch = micro_batch;
    stream_->restoreState(stream_start_);
    // Online RL draws prompts, each making rowsPerExample() rows (at least one whole group).
    const std::int64_t per_example = recipe_->rowsPerExample();
    std::vector<data::Example> examples(static_cast<std::size_t>(
        std::max<std::int64_t>(1, (micro_batch * micro_batches + per_example - 1) / per_example)));
    for (data::Example &example : examples) {
        stream_->next(example);
    }
    memory::MemoryMeter &meter = *release_.meter;
    optimizer_->zeroGrad();
    meter.resetPeak();
    try {
        runStep(examples, micro_batch);
        result.fits = true;
    } catch (const std::exception &error) {
        if (!memory::isOutOfMemory(error)) {
            optimizer_->zeroGrad();
            restore();
            throw;
        }
        const std::string message = error.what();
        result.error = message.substr(0, message.find('\n'));
    }
    result.peak = meter.read().peak;
    optimizer_->zeroGrad();
    restore();
    return result;
}

void ProbeRunner::runStep(const std::vector<data::Example> &drawn, std::int64_t micro_batch) {
    const auto size = static_cast<std::size_t>(micro_batch);
    std::vector<data::Example> expanded;
    if (recipe_->expandsStep()) {
        const compat::ScopedAutocastState autocast(train::autocastFor(techniques_, device_));
        expanded = recipe_->expandStep(drawn, size, 1);
        recipe_->beginStep(expanded); // as the trainer pads a step's rows
    }
    const std::vector<data::Example> &examples = recipe_->expandsStep() ? expanded : drawn;
    const std::size_t total = examples.size();
    // As the trainer keys a step's dropout (models/keyed_dropout.h).
    const std::uint64_t dropout_seed =
        models::dropoutStepSeed(static_cast<std::uint64_t>(config_.integer("train.seed")), 1);
    if (recipe_->couplesExamples()) {
        train::ExampleBatch all;
        for (const data::Example &example : examples) {
            all.push_back(&example);
        }
        const compat::ScopedAutocastState autocast(train::autocastFor(techniques_, device_));
        recipe_->prepareStep(all, size, dropout_seed, 1);
    }
    for (std::size_t start = 0; start < total; start += size) {
        train::ExampleBatch batch;
        for (std::size_t i = start; i < std::min(total, start + size); ++i) {
            batch.push_back(&examples[i]);
        }
        const double share = static_cast<double>(batch.size()) / static_cast<double>(total);
        const models::ScopedDropoutKey dropout_key(dropout_seed, static_cast<std::int64_t>(start),
                                                   static_cast<std::int64_t>(batch.size()));
        torch::Tensor loss;
        bool step_total = false;
        {
            const compat::ScopedAutocastState autocast(train::autocastFor(techniques_, device_));
            // The objective, as a training step backpropagates it (MoE balancing losses too).
            train::TrainingLoss terms = recipe_->trainingLoss(batch);
            loss = terms.objective.to(torch::kFloat32);
            step_total = terms.step_total;
        }
        (step_total ? loss : loss * share).backward();
    }
    const double clip = config_.real("train.grad_clip");
    optimizer_->clipGradNorm(clip > 0 ? clip : std::numeric_limits<double>::infinity());
    optimizer_->step();
}

std::vector<torch::Tensor> ProbeRunner::stateTensors() {
    std::vector<torch::Tensor> tensors = recipe_->module()->parameters();
    for (const torch::Tensor &buffer : recipe_->module()->buffers()) {
        tensors.push_back(buffer);
    }
    return tensors;
}

void ProbeRunner::snapshot() {
    tensor_bytes_.clear();
    for (const torch::Tensor &tensor : stateTensors()) {
        std::string bytes(tensor.nbytes(), '\0');
        // An empty tensor (a projection weight held quantized) has no data pointer to copy.
        if (!bytes.empty()) {
            const torch::Tensor host =
                isHostContiguous(tensor) ? tensor : tensor.detach().to(torch::kCPU).contiguous();
            std::memcpy(bytes.data(), host.data_ptr(), bytes.size());
        }
        tensor_bytes_.push_back(std::move(bytes));
    }
    torch::serialize::OutputArchive archive;
    optimizer_->saveState(archive);
    std::ostringstream out;
    archive.save_to(out);
    optimizer_state_ = out.str();
    at::Generator generator = at::detail::getDefaultCPUGenerator();
    std::lock_guard<std::mutex> lock(generator.mutex());
    generator_state_ = generator.get_state();
}

void ProbeRunner::restore() {
    torch::NoGradGuard no_grad;
    const std::vector<torch::Tensor> tensors = stateTensors();
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        torch::Tensor tensor = tensors[i];
        std::string &bytes = tensor_bytes_[i];
        if (bytes.empty()) {
            continue;
        }
        if (isHostContiguous(tensor)) {
            std::memcpy(tensor.data_ptr(), bytes.data(), bytes.size());
        } else {
            tensor.detach().copy_(torch::from_blob(bytes.data(), tensor.sizes(),
                                                   tensor.options().device(torch::kCPU)));
        }
    }
    // Loading the optimizer state materializes it once more for a moment: outside the
    // budget, which only the probe steps are measured against.
    memory::MemoryMeter &meter = *release_.meter;
    meter.applyBudget(0);
    {
        torch::serialize::InputArchive archive;
        std::istringstream in(optimizer_state_);
        archive.load_from(in);
        optimizer_->loadState(archive);
    }
    meter.applyBudget(budget_);
    at::Generator generator = at::detail::getDefaultCPUGenerator();
    std::lock_guard<std::mutex> lock(generator.mutex());
    generator.set_state(generator_state_);
}

} // namespace headroom::plan
