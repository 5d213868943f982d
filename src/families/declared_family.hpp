// A family declared in a file (families/declaration.hpp) as a KernelFamily: the same interface
// the built-in families implement, so that subcommands, suites, reports, the cache, shards and
// export take it without knowing where it came from.
#pragma once

#include <memory>

#include "families/declaration.hpp"
#include "families/family.hpp"

namespace ktune {

std::unique_ptr<KernelFamily> make_declared_family(Declaration declaration);

}  // namespace ktune
