#include "util/gzip_file.hpp"

#include <zlib.h>

#include <limits>

#include <fmt/format.h>

#include "util/error.hpp"
#include "util/fs.hpp"

namespace ktune {

bool is_gzip(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

std::string read_file_inflated(const std::filesystem::path& path) {
  std::string packed = read_file(path);
  if (!is_gzip(packed)) return packed;
  auto fail = [&](const char* why) {
    return Error(fmt::format("{}: cannot read it as gzip: {}", path.string(), why));
  };
  if (packed.size() > std::numeric_limits<uInt>::max()) throw fail("over 4 GiB compressed, more than one read takes");
  z_stream z{};
  // 16 + MAX_WBITS: a gzip header and trailer around the deflate data, checked (CRC-32, length).
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) throw fail("zlib would not start");
  std::string out;
  char chunk[1 << 16];
  z.next_in = reinterpret_cast<Bytef*>(packed.data());
  z.avail_in = static_cast<uInt>(packed.size());
  int status = Z_OK;
  while (true) {
    z.next_out = reinterpret_cast<Bytef*>(chunk);
    z.avail_out = sizeof chunk;
    status = inflate(&z, Z_NO_FLUSH);
    out.append(chunk, sizeof chunk - z.avail_out);
    if (status == Z_STREAM_END) {
      if (z.avail_in == 0) break;
      // Another member follows (gzip a b > ab.gz): read on, as gunzip does.
      status = inflateReset(&z);
      if (status != Z_OK) break;  // reported as damaged below, never as a shorter document
      continue;
    }
    if (status != Z_OK) break;
    if (z.avail_in == 0 && z.avail_out != 0) {
      status = Z_BUF_ERROR;  // the input ended inside a member
      break;
    }
  }
  const char* why = status == Z_STREAM_END ? nullptr
                    : status == Z_BUF_ERROR ? "it ends before its compressed data does (cut short?)"
                    : z.msg                  ? z.msg
                                             : "damaged compressed data";
  inflateEnd(&z);
  if (why) throw fail(why);
  return out;
}

}  // namespace ktune
