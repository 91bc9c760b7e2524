# candor_set_warnings(target): the project's warning set, applied to our own targets only.
function(candor_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
                                           -Wold-style-cast -Wcast-align -Wunused -Woverloaded-virtual
                                           -Wnull-dereference -Wimplicit-fallthrough
                                           # designated initializers leave members at their defaults on purpose
                                           -Wno-missing-field-initializers)
  if(CANDOR_WARNINGS_AS_ERRORS)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
