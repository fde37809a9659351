# shellcheck shell=bash
# cmake_generator DIR: the cmake options that choose the build tool for a
# build tree at DIR, into the array CMAKE_GENERATOR_OPTIONS. Ninja for a new
# tree when it is installed: it starts a target's compiles while the
# libraries it links are still compiling, where make waits for them, and
# kept both cores busy to the end (the fresh build: 201 s with Ninja, 234 s
# with make; the ThreadSanitizer tree 75 s against 81, 2026-11-28). A tree
# that exists keeps the tool it was configured with (cmake refuses another).
cmake_generator() {
  CMAKE_GENERATOR_OPTIONS=()
  if [ ! -f "$1/CMakeCache.txt" ] && command -v ninja > /dev/null; then
    # shellcheck disable=SC2034  # read by the script that sources this
    CMAKE_GENERATOR_OPTIONS=(-G Ninja)
  fi
}
