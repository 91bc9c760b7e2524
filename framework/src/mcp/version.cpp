// SPDX-License-Identifier: BSL-1.0
#include <candor/mcp/version.hpp>

#ifndef CANDOR_VERSION
#error "CANDOR_VERSION is set by framework/CMakeLists.txt"
#endif

namespace candor {

std::string_view version() noexcept { return CANDOR_VERSION; }

}  // namespace candor
