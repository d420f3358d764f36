/* C interface of Headroom's SentencePiece module (libheadroom_spm).
 *
 * Debian's libsentencepiece carries its own copy of protobuf and exports it; loaded next to
 * LibTorch (which links the system libprotobuf) the two copies clash and the process crashes
 * while loading. The engine therefore never links SentencePiece: it loads this module at run
 * time with its own symbol scope (dlopen + RTLD_LOCAL | RTLD_DEEPBIND) and talks to it
 * through plain C functions. Buffers returned through out-parameters are freed with
 * hr_spm_free_buffer. Functions return 0 on success; on failure *error holds a message. */
#ifndef HEADROOM_SPM_H
#define HEADROOM_SPM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hr_spm_model hr_spm_model;

/* Trains a model on the sentences of a UTF-8 text file (one per line). `options` are
 * SentencePiece trainer flags such as "--vocab_size=512 --model_type=bpe". */
int hr_spm_train(const char *input_path, const char *options, char **model, size_t *model_size,
                 char **error);

int hr_spm_load(const char *model, size_t model_size, hr_spm_model **out, char **error);
void hr_spm_free_model(hr_spm_model *model);

int32_t hr_spm_vocab_size(const hr_spm_model *model);
int32_t hr_spm_eos_id(const hr_spm_model *model);

int hr_spm_encode(const hr_spm_model *model, const char *text, size_t text_size, int32_t **ids,
                  size_t *count, char **error);
int hr_spm_decode(const hr_spm_model *model, const int32_t *ids, size_t count, char **text,
                  size_t *text_size, char **error);

void hr_spm_free_buffer(void *buffer);

#ifdef __cplusplus
}
#endif

#endif
