# SPDX-License-Identifier: BSL-1.0
# Candor's components: the one table of which module goes into which library, what each library
# builds on and which packages it needs. framework/CMakeLists.txt builds the libraries from it,
# tools/*/CMakeLists.txt add the ready-made tools, and the installed candorConfig.cmake resolves
# find_package(candor COMPONENTS ...) with it.
#
# A module is a folder: framework/include/candor/<module>/ and framework/src/<module>/. An entry
# "<module>/<glob>" places part of a folder (the HTTP half of transport) and wins over the
# folder's own entry. A file that no entry places stops the configure step: a new module folder
# is one word to add below.

# The packages, with the versions Candor needs (Debian 12 has Boost 1.81, OpenSSL 3.0.x, SQLite
# 3.40; sqlite3_changes64 needs 3.37, `IS DISTINCT FROM` 3.39). The same arguments find them in
# the tree (find_package ... REQUIRED) and for a consumer (find_dependency). RE2 has no CMake
# package on Debian 12: it is found through pkg-config (its re2.pc says version 0.0.0, so no
# version can be asked for).
# OpenSSL_TLS is OpenSSL with libssl, for the TLS clients: the fetcher of OAuth documents and
# keys, and the MCP client's https.
set(CANDOR_PACKAGE_Boost_FIND Boost 1.81 CONFIG COMPONENTS json url)
set(CANDOR_PACKAGE_Boost_LINK PUBLIC Boost::headers Boost::json Boost::url)
set(CANDOR_PACKAGE_Threads_FIND Threads)
set(CANDOR_PACKAGE_Threads_LINK PUBLIC Threads::Threads)
set(CANDOR_PACKAGE_RE2_FIND PKG_CONFIG re2)
set(CANDOR_PACKAGE_RE2_LINK PRIVATE PkgConfig::CANDOR_RE2)
set(CANDOR_PACKAGE_OpenSSL_FIND OpenSSL 3.0 COMPONENTS Crypto)
set(CANDOR_PACKAGE_OpenSSL_LINK PRIVATE OpenSSL::Crypto)
set(CANDOR_PACKAGE_OpenSSL_TLS_FIND OpenSSL 3.0 COMPONENTS Crypto SSL)
set(CANDOR_PACKAGE_OpenSSL_TLS_LINK PRIVATE OpenSSL::SSL OpenSSL::Crypto)
set(CANDOR_PACKAGE_SQLite3_FIND SQLite3 3.39)
set(CANDOR_PACKAGE_SQLite3_LINK PRIVATE SQLite::SQLite3)
# libpq, PostgreSQL's client library (Debian: libpq-dev), through pkg-config as well.
set(CANDOR_PACKAGE_PostgreSQL_FIND PKG_CONFIG libpq)
set(CANDOR_PACKAGE_PostgreSQL_LINK PRIVATE PkgConfig::CANDOR_PostgreSQL)
set(CANDOR_PACKAGES Boost Threads RE2 OpenSSL OpenSSL_TLS SQLite3 PostgreSQL)

# candor_find_package(<package> <mode>): find one package of CANDOR_PACKAGES. <mode> REQUIRED
# (in the tree: a missing package stops the configure step) or DEPENDENCY (in candorConfig.cmake:
# find_dependency, which makes find_package(candor) fail and say why).
macro(candor_find_package _candor_package _candor_mode)
  if(CANDOR_PACKAGE_${_candor_package}_FIND MATCHES "^PKG_CONFIG;(.+)$")
    if(NOT TARGET PkgConfig::CANDOR_${_candor_package})
      set(_candor_module ${CMAKE_MATCH_1})
      if("${_candor_mode}" STREQUAL "REQUIRED")
        find_package(PkgConfig REQUIRED)
        pkg_check_modules(CANDOR_${_candor_package} REQUIRED IMPORTED_TARGET ${_candor_module})
      else()
        find_dependency(PkgConfig)
        pkg_check_modules(CANDOR_${_candor_package} QUIET IMPORTED_TARGET ${_candor_module})
        if(NOT CANDOR_${_candor_package}_FOUND)
          set(${CMAKE_FIND_PACKAGE_NAME}_NOT_FOUND_MESSAGE
              "${CMAKE_FIND_PACKAGE_NAME} needs ${_candor_package}: pkg-config finds no '${_candor_module}' module")
          set(${CMAKE_FIND_PACKAGE_NAME}_FOUND FALSE)
          return()
        endif()
      endif()
    endif()
  elseif("${_candor_mode}" STREQUAL "REQUIRED")
    find_package(${CANDOR_PACKAGE_${_candor_package}_FIND} REQUIRED)
  else()
    find_dependency(${CANDOR_PACKAGE_${_candor_package}_FIND})
  endif()
endmacro()

set(CANDOR_COMPONENTS "")

# candor_component(NAME [MODULES module|module/glob...] [DEPENDS component...] [PACKAGES package...])
# Declares a component. DEPENDS may name only components declared above it, so the table is in
# dependency order (the order the package config loads them in). A component without MODULES has
# its sources elsewhere (tools/<name>) and is built there with candor_add_component_library.
function(candor_component name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "MODULES;DEPENDS;PACKAGES")
  foreach(dep IN LISTS arg_DEPENDS)
    if(NOT dep IN_LIST CANDOR_COMPONENTS)
      message(FATAL_ERROR "candor component '${name}' builds on '${dep}', which is not declared above it")
    endif()
  endforeach()
  foreach(package IN LISTS arg_PACKAGES)
    if(NOT package IN_LIST CANDOR_PACKAGES)
      message(FATAL_ERROR "candor component '${name}' needs package '${package}', which CANDOR_PACKAGES does not define")
    endif()
  endforeach()
  set(CANDOR_COMPONENTS ${CANDOR_COMPONENTS} ${name} PARENT_SCOPE)
  set(CANDOR_COMPONENT_${name}_MODULES ${arg_MODULES} PARENT_SCOPE)
  set(CANDOR_COMPONENT_${name}_DEPENDS ${arg_DEPENDS} PARENT_SCOPE)
  set(CANDOR_COMPONENT_${name}_PACKAGES ${arg_PACKAGES} PARENT_SCOPE)
endfunction()

# Typed tools, JSON Schema contracts, envelopes, the MCP server, fan-out over sources (gather), stdio,
# the standard command line, the SQL store interface (store; no engine) and the worker that runs
# blocking work off the I/O threads (offload), and the umbrella header candor/candor.hpp.
candor_component(core MODULES candor.hpp error json schema contract envelope jsonrpc offload store mcp gather
                      transport app
                      PACKAGES Boost Threads RE2)
# The Streamable HTTP transport, its OAuth 2.1 resource server (http/auth) and --http
# (app::http_command_line).
candor_component(http MODULES http DEPENDS core PACKAGES OpenSSL_TLS)
# HMAC key ring (seal), snapshot tokens, the evidence store interface, evidence-gated actions,
# and --sealing-keys (keys::command_line).
candor_component(evidence MODULES seal evidence keys DEPENDS core PACKAGES OpenSSL)
# Agent Skills published over MCP (the skills extension): frontmatter, digests, limits.
candor_component(skills MODULES skills DEPENDS core PACKAGES OpenSSL)
# Collections behind one fetch method, sealed cursors, aggregation.
candor_component(paging MODULES paging DEPENDS evidence)
# Validated tools: invariants, external checks, repair budget, approval.
candor_component(validation MODULES validation DEPENDS evidence)
# RAII over SQLite, and the store interface on it (sqlite::open_sql_database).
candor_component(sqlite MODULES sqlite DEPENDS core PACKAGES SQLite3)
# PostgreSQL on libpq, asynchronous through Asio: connections, a bounded pool, cancellation,
# migrations, and the store interface on it (postgres::open_sql_database).
candor_component(postgres MODULES postgres DEPENDS core PACKAGES PostgreSQL)
# A server's durable state on SQLite or PostgreSQL: the evidence stores, the plan ledger, the
# shared repair counts, the HTTP sessions' records and event log, state::open_url with the
# framework's migrations, and --state URL (state::command_line, which opens them all at once).
candor_component(state MODULES state DEPENDS http sqlite postgres validation)
# Call journal, Prometheus metrics, operations console, and their flags (ops::command_line).
candor_component(ops MODULES ops DEPENDS http)
# Client side: decisions on an envelope's wire JSON.
candor_component(agent MODULES agent PACKAGES Boost)
# The MCP client: stdio and Streamable HTTP (TLS with OpenSSL), both eras, envelopes read and
# walks followed, and its OAuth 2.1 (the side requests through http's fetcher).
candor_component(client MODULES client DEPENDS core agent http PACKAGES OpenSSL_TLS)
# A SQL table as a searchable, pageable collection tool (tools/sql_collection).
candor_component(sql_collection DEPENDS sqlite paging)

# candor_component_closure(<out> component...): the components given and everything they build
# on, in table order.
function(candor_component_closure out)
  set(wanted ${ARGN})
  set(grown TRUE)
  while(grown)
    set(grown FALSE)
    foreach(c IN LISTS wanted)
      foreach(dep IN LISTS CANDOR_COMPONENT_${c}_DEPENDS)
        if(NOT dep IN_LIST wanted)
          list(APPEND wanted ${dep})
          set(grown TRUE)
        endif()
      endforeach()
    endforeach()
  endwhile()
  set(ordered "")
  foreach(c IN LISTS CANDOR_COMPONENTS)
    if(c IN_LIST wanted)
      list(APPEND ordered ${c})
    endif()
  endforeach()
  set(${out} ${ordered} PARENT_SCOPE)
endfunction()

# candor_component_of(<out> <path>): the component a framework file belongs to, from its path
# relative to framework/src or framework/include/candor ("http/server.cpp"); empty when
# no entry places it. A "<module>/<glob>" entry wins over a "<module>" one; two of the same kind
# that both match are an error in the table.
function(candor_component_of out path)
  string(REGEX MATCH "^([^/]+)/?(.*)$" whole "${path}")
  set(module "${CMAKE_MATCH_1}")
  set(rest "${CMAKE_MATCH_2}")
  set(by_glob "")
  set(by_folder "")
  foreach(c IN LISTS CANDOR_COMPONENTS)
    foreach(entry IN LISTS CANDOR_COMPONENT_${c}_MODULES)
      if(entry STREQUAL module)
        list(APPEND by_folder ${c})
      elseif(entry MATCHES "^${module}/(.+)$")
        # The glob as a regular expression (file names are [a-z0-9_.]: only '.' needs escaping).
        string(REPLACE "." "\\." pattern "${CMAKE_MATCH_1}")
        string(REPLACE "*" "[^/]*" pattern "${pattern}")
        string(REPLACE "?" "[^/]" pattern "${pattern}")
        if(rest MATCHES "^${pattern}$")
          list(APPEND by_glob ${c})
        endif()
      endif()
    endforeach()
  endforeach()
  set(found ${by_glob})
  if(NOT found)
    set(found ${by_folder})
  endif()
  list(LENGTH found n)
  if(n GREATER 1)
    message(FATAL_ERROR "framework file ${path} is placed by more than one component (${found}): "
                        "fix the table in cmake/CandorComponents.cmake")
  endif()
  set(${out} "${found}" PARENT_SCOPE)
endfunction()
