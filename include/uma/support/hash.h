// SHA-256 (OpenSSL's libcrypto), for the object cache's keys and its entries' digests: a
// cryptographic hash, so that no one can make two different inputs share a cache entry.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "uma/support/error.h"

struct evp_md_ctx_st;

namespace uma {

class ContentHash {
 public:
  ContentHash();
  ~ContentHash();
  ContentHash(const ContentHash&) = delete;
  ContentHash& operator=(const ContentHash&) = delete;

  // Adds the bytes and then their length, so ("ab", "c") and ("a", "bc") hash differently.
  ContentHash& add(std::string_view bytes);
  // The digest of what was added, as 64 lowercase hex digits (for file names).
  std::string hex() const;

 private:
  struct Free {
    void operator()(evp_md_ctx_st* context) const;
  };
  std::unique_ptr<evp_md_ctx_st, Free> context_;
};

// The SHA-256 of the bytes (not their length), as 64 lowercase hex digits.
std::string sha256_hex(std::string_view bytes);
// The SHA-256 of a regular file's bytes; errors name the file.
Expected<std::string> sha256_file(const std::string& path);

}  // namespace uma
