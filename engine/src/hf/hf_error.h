#pragma once

#include <headroom/config.h>

namespace headroom::hf {

// A Hugging Face model folder, or one of its files, that cannot be read as asked: the message names
// the file, the tensor or JSON key, and what was expected. An InputError, so the CLI exits with
// code 2.
class ModelFolderError : public InputError {
public:
    using InputError::InputError;
};

} // namespace headroom::hf
