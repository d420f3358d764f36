#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace headroom::util {

// SHA-256 of a file's bytes as lowercase hex; throws std::runtime_error naming the file.
std::string sha256File(const std::string &path);
std::string sha256Hex(const void *data, std::size_t size);

// A fast 64-bit checksum of bytes as 16 hex digits (four multiply-rotate lanes over 8-byte
// words): detects corrupted or truncated cache files at memory speed. Not cryptographic.
std::string checksum64(const void *data, std::size_t size);

// FNV-1a 64 of the ids (little-endian 8 bytes each) as 16 hex digits: the samples_digest.
std::string digestIds(const std::vector<std::uint64_t> &ids);

} // namespace headroom::util
