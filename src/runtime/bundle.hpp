// A bundle: the tuned table and everything needed to launch its kernels without ktune, for an
// application that links the runtime library (include/ktune/runtime.hpp, docs/runtime.md).
//
//   DIR/bundle.json      the dispatch table's rows, each with its sweep config's file, its
//                        declaration's (declared families) and its cubins by architecture
//   DIR/configs/         the built-in sweep configs the rows came from, with their kernels and
//                        headers in DIR/configs/kernels/ (so another architecture, or a shape no
//                        row was tuned for, compiles them with NVRTC on first use)
//   DIR/families/NAME/   a declared family's folder: its declaration, sweep configs and kernels
//   DIR/cubins/          each row's kernel built for the GPU it was tuned on
//
// Written offline: NVRTC builds the cubins for each row's architecture, no GPU needed.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "store/dispatch_table.hpp"

namespace ktune {

class Compiler;

struct BundleCubin {
  std::string file;          // relative to the bundle
  std::string lowered_name;  // the kernel's mangled name in it
};

struct BundleRow {
  DispatchRow row;
  std::string config_file;  // relative to the bundle; "" for a row of the bundle's own cache (by name)
  std::string declaration;  // relative to the bundle; "" for a built-in family
  std::map<std::string, BundleCubin> cubins;  // by architecture ("sm_90a")
};

struct BundleWriteReport {
  size_t rows = 0, cubins = 0;
  std::vector<std::string> notes;  // rows left out, cubins that did not build: each with its reason
};

// Writes the bundle for `table` into `dir` (created; bundle.json replaced atomically, last).
// Rows whose family or config this ktune does not know are left out, with a note.
BundleWriteReport write_bundle(const std::filesystem::path& dir, const std::vector<DispatchRow>& table,
                               Compiler& compiler);

// bundle.json's rows; ConfigError naming the file for a malformed or missing one. Then the rows of
// the bundle's own cache (DIR/cache/best_configs.json, where tuning on a miss writes) for shapes
// bundle.json does not hold, with no config file or cubin: their configs are found by name.
std::vector<BundleRow> read_bundle(const std::filesystem::path& dir);

}  // namespace ktune
