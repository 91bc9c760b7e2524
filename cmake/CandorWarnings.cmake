# SPDX-License-Identifier: BSL-1.0
# candor_set_warnings(target): the project's warning set, applied to our own targets only.
function(candor_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
                                           -Wold-style-cast -Wcast-align -Wunused -Woverloaded-virtual
                                           -Wimplicit-fallthrough)
  # -Wextra's -Wmissing-field-initializers stays on: every member of a struct that callers fill in
  # has a default member initializer, so designated initializers that leave members out (the
  # style of the docs and examples) compile without it, here and in consumers' builds.
  # Not -Wnull-dereference: with GCC 12 at -O2 it reports false positives inside Boost.JSON,
  # Boost.Asio's any_executor and libstdc++ iterators once they are inlined into our code.
  if(CANDOR_WARNINGS_AS_ERRORS)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
