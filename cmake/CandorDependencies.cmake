# SPDX-License-Identifier: BSL-1.0
# Every dependency comes from Debian 12 packages (see scripts/setup-deps); which ones, with their
# versions, is defined beside the components that need them (CandorComponents.cmake). The tree
# builds every component, so it needs every package.
# libboost1.81-all-dev does not ship Boost.JSON/Boost.URL; they come from
# libboost-json1.81-dev and libboost-url1.81-dev.
include(CandorComponents)
foreach(package IN LISTS CANDOR_PACKAGES)
  candor_find_package(${package} REQUIRED)
endforeach()
