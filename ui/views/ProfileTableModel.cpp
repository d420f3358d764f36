#include "views/ProfileTableModel.h"

#include "look/DisplayText.h"

#include <QLocale>

namespace headroom::ui {

namespace {

QString milliseconds(double us) {
    return QLocale().toString(us / 1000.0, 'f', 2);
}

// Net bytes can be negative: an operator that freed more than it allocated.
QString signedBytes(std::int64_t bytes) {
    if (bytes == 0) {
        return QStringLiteral("0");
    }
    const QString magnitude =
        DisplayText::bytes(static_cast<std::uint64_t>(bytes < 0 ? -bytes : bytes));
    return bytes < 0 ? QStringLiteral("−") + magnitude : magnitude;
}

} // namespace

ProfileTableModel::ProfileTableModel(QObject *parent) : QAbstractTableModel(parent) {}

void ProfileTableModel::setOperators(std::vector<OperatorProfile> operators) {
    beginResetModel();
    operators_ = std::move(operators);
    self_total_us_ = 0;
    for (const OperatorProfile &row : operators_) {
        self_total_us_ += row.self_us;
    }
    endResetModel();
}

int ProfileTableModel::rowCount(const QModelIndex &parent) const {
    return parent.isValid() ? 0 : static_cast<int>(operators_.size());
}

int ProfileTableModel::columnCount(const QModelIndex &parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ProfileTableModel::data(const QModelIndex &index, int role) const {
    if (!index.isValid() || index.row() >= rowCount()) {
        return {};
    }
    const OperatorProfile &row = operators_[static_cast<std::size_t>(index.row())];
    const double share = self_total_us_ > 0 ? 100.0 * row.self_us / self_total_us_ : 0.0;
    if (role == kSortRole) {
        switch (index.column()) {
        case NameColumn:
            return QString::fromStdString(row.name);
        case CallsColumn:
            return static_cast<qlonglong>(row.calls);
        case TotalColumn:
            return row.total_us;
        case SelfColumn:
        case SelfShareColumn:
            return row.self_us;
        case CpuMemoryColumn:
            return static_cast<qlonglong>(row.self_cpu_memory);
        case DeviceMemoryColumn:
            return static_cast<qlonglong>(row.self_device_memory);
        default:
            return {};
        }
    }
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case NameColumn:
            return QString::fromStdString(row.name);
        case CallsColumn:
            return QLocale().toString(static_cast<qlonglong>(row.calls));
        case TotalColumn:
            return milliseconds(row.total_us);
        case SelfColumn:
            return milliseconds(row.self_us);
        case SelfShareColumn:
            return tr("%1 %").arg(QLocale().toString(share, 'f', 1));
        case CpuMemoryColumn:
            return signedBytes(row.self_cpu_memory);
        case DeviceMemoryColumn:
            return signedBytes(row.self_device_memory);
        default:
            return {};
        }
    }
    if (role == Qt::TextAlignmentRole && index.column() != NameColumn) {
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    }
    if (role == Qt::ToolTipRole && index.column() == NameColumn) {
        return tr("%1\nAllocated on the CPU: %2\nAllocated on the GPU: %3")
            .arg(QString::fromStdString(row.name), DisplayText::bytes(row.cpu_allocated),
                 DisplayText::bytes(row.device_allocated));
    }
    return {};
}

QVariant ProfileTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal) {
        return {};
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case TotalColumn:
            return tr("Wall time on the host, including the operators it called");
        case SelfColumn:
            return tr("Wall time on the host, without the operators it called");
        case CpuMemoryColumn:
        case DeviceMemoryColumn:
            return tr("Bytes allocated minus bytes freed while this operator was the innermost "
                      "one");
        default:
            return {};
        }
    }
    if (role != Qt::DisplayRole) {
        return {};
    }
    switch (section) {
    case NameColumn:
        return tr("Operator");
    case CallsColumn:
        return tr("Calls");
    case TotalColumn:
        return tr("Total (ms)");
    case SelfColumn:
        return tr("Self (ms)");
    case SelfShareColumn:
        return tr("Self share");
    case CpuMemoryColumn:
        return tr("Self CPU memory");
    case DeviceMemoryColumn:
        return tr("Self GPU memory");
    default:
        return {};
    }
}

} // namespace headroom::ui
