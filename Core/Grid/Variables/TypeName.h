#pragma once
// Readable names of the value types variables hold, for error messages.

#include <cstdint>
#include <string>

namespace tessera {

template <class T>
struct TypeName {
  static std::string get() { return "unknown"; }
};
template <>
struct TypeName<double> {
  static std::string get() { return "double"; }
};
template <>
struct TypeName<float> {
  static std::string get() { return "float"; }
};
template <>
struct TypeName<int> {
  static std::string get() { return "int"; }
};
template <>
struct TypeName<std::int64_t> {
  static std::string get() { return "int64"; }
};

}  // namespace tessera
