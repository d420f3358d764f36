#pragma once

// qcustomplot.h uses Qt's `signals` and `foreach` keywords, which this project turns off
// (QT_NO_KEYWORDS: they break Torch headers). Include it only through this header.
#if !defined(signals) && !defined(foreach)
#define signals Q_SIGNALS
#define foreach Q_FOREACH
#include <qcustomplot.h>
#undef signals
#undef foreach
#else
#include <qcustomplot.h>
#endif
