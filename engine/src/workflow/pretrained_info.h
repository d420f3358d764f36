#pragma once

#include "hf/model_folder.h"

#include <headroom/pretrained.h>

namespace headroom::workflow {

// inspectPretrained (headroom/pretrained.h) for a folder already located. Throws InputError.
PretrainedInfo inspectPretrained(const hf::ModelFolder &folder);

} // namespace headroom::workflow
