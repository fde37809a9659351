#pragma once
// A thin RAII layer over HDF5: move-only handles that close their id, and a
// check macro that turns a failed call into an Error naming the call, the
// file and the line.

#include "Core/Util/Error.h"

#include <hdf5.h>

#include <string>
#include <utility>

#define TESSERA_HDF5_CHECK(call)                                          \
  ([&]() {                                                                \
    const auto tessera_h5_result_ = (call);                               \
    if (tessera_h5_result_ < 0) {                                         \
      ::tessera::detail::throwError<::tessera::H5CallError>(              \
          __FILE__, __LINE__, std::string("HDF5 call failed: ") + #call); \
    }                                                                     \
    return tessera_h5_result_;                                            \
  }())

namespace tessera {

// An HDF5 call returned an error: the library's own state for that file may
// no longer be what the other ranks' is (see writeArchiveFile).
class H5CallError : public Error {
 public:
  using Error::Error;
};

template <herr_t (*Close)(hid_t)>
class H5Handle {
 public:
  H5Handle() = default;
  // Takes ownership of `id`; a negative id (a failed create/open) is an error.
  explicit H5Handle(hid_t id, const char* what = "HDF5 object") : m_id(id) {
    if (m_id < 0) throw H5CallError(std::string("cannot create or open the ") + what);
  }
  H5Handle(H5Handle&& other) noexcept : m_id(std::exchange(other.m_id, -1)) {}
  H5Handle& operator=(H5Handle&& other) noexcept {
    if (this != &other) {
      reset();
      m_id = std::exchange(other.m_id, -1);
    }
    return *this;
  }
  H5Handle(const H5Handle&) = delete;
  H5Handle& operator=(const H5Handle&) = delete;
  ~H5Handle() { reset(); }

  hid_t get() const { return m_id; }
  // Lets go of the id without closing it (the caller has a reason: see
  // writeArchiveFile).
  void abandon() noexcept { m_id = -1; }
  explicit operator bool() const { return m_id >= 0; }
  // Closes now and reports failure (a file's last write can fail at close).
  void close() {
    if (m_id >= 0) {
      const herr_t status = Close(std::exchange(m_id, -1));
      if (status < 0) throw H5CallError("closing an HDF5 object failed");
    }
  }

 private:
  void reset() noexcept {
    if (m_id >= 0) Close(std::exchange(m_id, -1));
  }
  hid_t m_id = -1;
};

using H5File = H5Handle<H5Fclose>;
using H5Dataset = H5Handle<H5Dclose>;
using H5Dataspace = H5Handle<H5Sclose>;
using H5PropertyList = H5Handle<H5Pclose>;
using H5Attribute = H5Handle<H5Aclose>;
using H5Group = H5Handle<H5Gclose>;
using H5Datatype = H5Handle<H5Tclose>;

// Silences HDF5's own error printing for the lifetime of the object: Tessera
// reports failures itself, with the path and the reason.
class H5ErrorSilencer {
 public:
  H5ErrorSilencer() {
    H5Eget_auto2(H5E_DEFAULT, &m_function, &m_data);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  H5ErrorSilencer(const H5ErrorSilencer&) = delete;
  H5ErrorSilencer& operator=(const H5ErrorSilencer&) = delete;
  ~H5ErrorSilencer() { H5Eset_auto2(H5E_DEFAULT, m_function, m_data); }

 private:
  H5E_auto2_t m_function = nullptr;
  void* m_data = nullptr;
};

}  // namespace tessera
