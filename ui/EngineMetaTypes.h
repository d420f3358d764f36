#pragma once

// Engine structs carried by queued signals and QSignalSpy: declared before any class that
// uses them in a signal.
#include "runs/RunSeries.h"

#include <headroom/metrics.h>
#include <headroom/project.h>
#include <headroom/session.h>

#include <QMetaType>

Q_DECLARE_METATYPE(headroom::RunInfo)
Q_DECLARE_METATYPE(headroom::StepMetrics)
Q_DECLARE_METATYPE(headroom::EvalMetrics)
Q_DECLARE_METATYPE(headroom::EngineEvent)
Q_DECLARE_METATYPE(headroom::SessionState)
Q_DECLARE_METATYPE(headroom::RunResult)
Q_DECLARE_METATYPE(headroom::RunRecord)
Q_DECLARE_METATYPE(headroom::ui::RunEvent)
