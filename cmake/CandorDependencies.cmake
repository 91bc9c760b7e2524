# SPDX-License-Identifier: BSL-1.0
# Every dependency comes from Debian 12 packages (see scripts/setup-deps).
# libboost1.81-all-dev does not ship Boost.JSON/Boost.URL; they come from
# libboost-json1.81-dev and libboost-url1.81-dev.
find_package(Boost 1.81 REQUIRED CONFIG COMPONENTS json url)
find_package(Threads REQUIRED)
find_package(OpenSSL REQUIRED)
find_package(SQLite3 REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(RE2 REQUIRED IMPORTED_TARGET re2)
