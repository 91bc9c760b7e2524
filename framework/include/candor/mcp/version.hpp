// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// The version of the Candor framework a binary was built with.

#include <string_view>

namespace candor {

/// The framework's version, "MAJOR.MINOR.PATCH" (the CMake project's version), e.g. for
/// `candor_build_info`.
std::string_view version() noexcept;

}  // namespace candor
