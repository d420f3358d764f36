#include "causal_lm_support.h"
#include "hf/quantized_base_cache.h"
#include "models/causal_lm.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <string>

// The project's quantized-base cache (hf/quantized_base_cache.h): what it writes reads back
// bit for bit, and a file for another base, format or quantizer version, a damaged file or one
// for another model shape is refused with the reason instead of being used.
class TestQuantizedBaseCache : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init();
    void readsBackWhatItWrote_data();
    void readsBackWhatItWrote();
    void missingFileIsSilent();
    void otherBaseOrFormatIsRefused();
    void damagedFileIsRefused();
    void coversOnlyTheSameShapes();
    void staleBasesAreRemoved();

private:
    headroom::hf::QuantizedBaseCache cache(const std::string &digest = kDigest) const {
        return {QDir(dir_->path()).filePath("p.headroom-cache").toStdString(), digest};
    }
    static constexpr const char *kDigest =
        "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    std::unique_ptr<QTemporaryDir> dir_;
};

namespace {

using headroom::models::BaseFormat;

headroom::models::CausalLmOptions tinyLlama(bool deferred) {
    headroom::models::CausalLmOptions options = test_support::tinyLlamaOptions(96);
    options.deferred_projections = deferred;
    return options;
}

headroom::models::CausalLm quantizedModel(BaseFormat format, std::int64_t hidden = 96) {
    torch::manual_seed(7);
    headroom::models::CausalLmOptions options = tinyLlama(false);
    options.hidden = hidden;
    headroom::models::CausalLm model(options);
    model->resetParameters();
    model->storeBaseWeights(format);
    return model;
}

} // namespace

void TestQuantizedBaseCache::init() {
    dir_ = std::make_unique<QTemporaryDir>();
    QVERIFY(dir_->isValid());
}

void TestQuantizedBaseCache::readsBackWhatItWrote_data() {
    QTest::addColumn<int>("format");
    QTest::newRow("int8") << static_cast<int>(BaseFormat::Int8);
    QTest::newRow("nf4") << static_cast<int>(BaseFormat::Nf4);
}

void TestQuantizedBaseCache::readsBackWhatItWrote() {
    QFETCH(int, format);
    const auto base_format = static_cast<BaseFormat>(format);
    headroom::models::CausalLm model = quantizedModel(base_format);
    const std::string path = headroom::hf::writeQuantizedBase(cache(), *model);
    QCOMPARE(QString::fromStdString(path), QString::fromStdString(cache().path(base_format)));
    QVERIFY(QFile::exists(QString::fromStdString(path)));

    std::string why;
    auto cached = headroom::hf::readQuantizedBase(cache(), base_format, &why);
    QVERIFY2(cached.has_value(), why.c_str());
    auto written = model->quantizedWeights();
    std::sort(written.begin(), written.end(),
              [](const auto &a, const auto &b) { return a.first < b.first; });
    QCOMPARE(cached->size(), written.size());
    QCOMPARE(written.size(), std::size_t{2 * 7}); // q, k, v, o, gate, up, down per layer
    for (std::size_t index = 0; index < written.size(); ++index) {
        const auto &[name, weight] = written[index];
        const auto &[cached_name, cached_weight] = (*cached)[index];
        QCOMPARE(cached_name, name);
        QCOMPARE(cached_weight.out, weight.out);
        QCOMPARE(cached_weight.in, weight.in);
        QVERIFY(torch::equal(cached_weight.codes, weight.codes));
        QVERIFY(torch::equal(cached_weight.scales, weight.scales));
        QCOMPARE(cached_weight.group_offsets.defined(), base_format == BaseFormat::Nf4);
        if (base_format == BaseFormat::Nf4) {
            QVERIFY(torch::equal(cached_weight.group_offsets, weight.group_offsets));
            QVERIFY(torch::equal(cached_weight.group_steps, weight.group_steps));
        }
    }

    // A model built for the import takes the cached weights and computes what the original does.
    headroom::models::CausalLm restored(tinyLlama(true));
    QVERIFY2(headroom::hf::coversDeferredProjections(*cached, *restored, &why), why.c_str());
    {
        torch::NoGradGuard no_grad;
        auto source = model->named_parameters();
        for (auto &item : restored->named_parameters()) {
            if (item.value().numel() > 0) {
                item.value().copy_(source[item.key()]);
            }
        }
    }
    for (auto &[name, weight] : *cached) {
        QVERIFY(restored->installQuantizedWeight(name, std::move(weight)));
    }
    QCOMPARE(restored->baseFormat(), base_format);
    model->eval();
    restored->eval();
    const torch::Tensor tokens = torch::randint(48, {2, 8}, torch::kLong);
    QVERIFY(torch::equal(restored->forward(tokens), model->forward(tokens)));
}

void TestQuantizedBaseCache::missingFileIsSilent() {
    std::string why;
    QVERIFY(!headroom::hf::readQuantizedBase(cache(), BaseFormat::Nf4, &why).has_value());
    QVERIFY(why.empty());
    // No project (an in-memory probe): no cache at all.
    QVERIFY(!headroom::hf::QuantizedBaseCache{}.enabled());
    QCOMPARE(headroom::hf::quantizedBaseCacheFolder(""), std::string());
    QCOMPARE(headroom::hf::quantizedBaseCacheFolder("/x/p.headroom"),
             std::string("/x/p.headroom-cache"));
}

void TestQuantizedBaseCache::otherBaseOrFormatIsRefused() {
    headroom::models::CausalLm model = quantizedModel(BaseFormat::Nf4);
    const std::string path = headroom::hf::writeQuantizedBase(cache(), *model);
    // The same file name prefix, another full digest: made from another base.
    const std::string other_digest = std::string(kDigest).substr(0, 16) + std::string(48, 'f');
    std::string why;
    QVERIFY(!headroom::hf::readQuantizedBase(cache(other_digest), BaseFormat::Nf4, &why));
    QVERIFY2(why.find("another base") != std::string::npos, why.c_str());
    QVERIFY2(why.find(path) != std::string::npos, why.c_str());
    // Renamed to pose as the int8 cache: it says which format it holds.
    QVERIFY(QFile::rename(QString::fromStdString(path),
                          QString::fromStdString(cache().path(BaseFormat::Int8))));
    why.clear();
    QVERIFY(!headroom::hf::readQuantizedBase(cache(), BaseFormat::Int8, &why));
    QVERIFY2(why.find("holds format nf4") != std::string::npos, why.c_str());
}

void TestQuantizedBaseCache::damagedFileIsRefused() {
    headroom::models::CausalLm model = quantizedModel(BaseFormat::Nf4);
    const QString path = QString::fromStdString(headroom::hf::writeQuantizedBase(cache(), *model));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadWrite));
    const qint64 last = file.size() - 1;
    QVERIFY(file.seek(last));
    char byte = 0;
    QVERIFY(file.getChar(&byte));
    QVERIFY(file.seek(last));
    QVERIFY(file.putChar(static_cast<char>(byte ^ 0x10)));
    file.close();
    std::string why;
    QVERIFY(!headroom::hf::readQuantizedBase(cache(), BaseFormat::Nf4, &why));
    QVERIFY2(why.find("damaged") != std::string::npos, why.c_str());

    // Truncated: the safetensors header no longer fits the file.
    QVERIFY(QFile::resize(path, last / 2));
    why.clear();
    QVERIFY(!headroom::hf::readQuantizedBase(cache(), BaseFormat::Nf4, &why));
    QVERIFY2(!why.empty(), "a truncated cache file was used");
}

void TestQuantizedBaseCache::coversOnlyTheSameShapes() {
    headroom::models::CausalLm model = quantizedModel(BaseFormat::Int8, /*hidden=*/128);
    headroom::hf::writeQuantizedBase(cache(), *model);
    std::string why;
    auto cached = headroom::hf::readQuantizedBase(cache(), BaseFormat::Int8, &why);
    QVERIFY2(cached.has_value(), why.c_str());
    headroom::models::CausalLm other(tinyLlama(true)); // hidden 96, not 128
    QVERIFY(!headroom::hf::coversDeferredProjections(*cached, *other, &why));
    QVERIFY2(why.find("another shape") != std::string::npos, why.c_str());
    cached->pop_back();
    headroom::models::CausalLm fewer(tinyLlama(true));
    QVERIFY(!headroom::hf::coversDeferredProjections(*cached, *fewer, &why));
    QVERIFY2(why.find("the model needs 14") != std::string::npos, why.c_str());
}

void TestQuantizedBaseCache::staleBasesAreRemoved() {
    headroom::models::CausalLm model = quantizedModel(BaseFormat::Nf4);
    const std::string old_digest = std::string(64, 'a');
    const std::string old_path = headroom::hf::writeQuantizedBase(cache(old_digest), *model);
    QVERIFY(QFile::exists(QString::fromStdString(old_path)));
    const std::string new_path = headroom::hf::writeQuantizedBase(cache(), *model);
    QVERIFY(QFile::exists(QString::fromStdString(new_path)));
    QVERIFY2(!QFile::exists(QString::fromStdString(old_path)), "the old base's cache stayed");
}

QTEST_GUILESS_MAIN(TestQuantizedBaseCache)
#include "test_quantized_base_cache.moc"
