// Reading a file that may be gzip-compressed: results files are kept as NAME.json.gz where they are
// large (results/README.md), and CI systems hand their artifacts back compressed, so the commands
// that read results take either form.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace ktune {

// True where `bytes` start as a gzip member does (RFC 1952: 0x1f 0x8b).
bool is_gzip(std::string_view bytes);

// The whole file, inflated where it is gzip (by its first two bytes, whatever its name), else as
// it is. Several concatenated members are read as one stream, as gunzip does. Throws ktune::Error
// naming the path where the file cannot be read or its compressed data is damaged or cut short.
std::string read_file_inflated(const std::filesystem::path& path);

}  // namespace ktune
