// Precompiled header of the engine: Torch is the expensive include.
#pragma once

#include <torch/torch.h>
