#pragma once

#include <headroom/config.h>

#include <QString>

#include <string>

namespace headroom::ui {

// A setting's description in the UI language (English where no translation exists).
QString translatedDescription(const KeySpec &spec);
// Whether the catalogue lists this description, so lupdate offers it to translators.
bool hasTranslatableDescription(const std::string &description);

} // namespace headroom::ui
