#pragma once

#include <headroom/profile.h>

#include <QAbstractTableModel>

#include <vector>

namespace headroom::ui {

// The profiler's operators as a table: formatted text for display, the raw number under
// kSortRole so a QSortFilterProxyModel sorts by value.
class ProfileTableModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column {
        NameColumn,
        CallsColumn,
        TotalColumn,
        SelfColumn,
        SelfShareColumn,
        CpuMemoryColumn,
        DeviceMemoryColumn,
        ColumnCount
    };
    static constexpr int kSortRole = Qt::UserRole + 1;

    explicit ProfileTableModel(QObject *parent = nullptr);

    void setOperators(std::vector<OperatorProfile> operators);
    const std::vector<OperatorProfile> &operators() const { return operators_; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    std::vector<OperatorProfile> operators_;
    double self_total_us_ = 0;
};

} // namespace headroom::ui
