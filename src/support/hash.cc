// SHA-256 through OpenSSL's EVP interface.
#include "uma/support/hash.h"

#include <openssl/evp.h>

#include <cstdint>

#include "uma/support/file.h"

namespace uma {
namespace {

std::string to_hex(const unsigned char* digest, unsigned size) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (unsigned i = 0; i < size; ++i) {
    out += kDigits[digest[i] >> 4];
    out += kDigits[digest[i] & 15];
  }
  return out;
}

}  // namespace

void ContentHash::Free::operator()(evp_md_ctx_st* context) const { EVP_MD_CTX_free(context); }

ContentHash::ContentHash() : context_(EVP_MD_CTX_new()) {
  UMA_CHECK(context_ != nullptr && EVP_DigestInit_ex(context_.get(), EVP_sha256(), nullptr) == 1,
            "OpenSSL cannot start a SHA-256 digest");
}

ContentHash::~ContentHash() = default;

ContentHash& ContentHash::add(std::string_view bytes) {
  unsigned char size[8];
  for (int i = 0; i < 8; ++i)
    size[i] = static_cast<unsigned char>(std::uint64_t{bytes.size()} >> (8 * i));
  UMA_CHECK(EVP_DigestUpdate(context_.get(), bytes.data(), bytes.size()) == 1 &&
                EVP_DigestUpdate(context_.get(), size, sizeof size) == 1,
            "OpenSSL cannot update a SHA-256 digest");
  return *this;
}

std::string ContentHash::hex() const {
  // Finished on a copy, so that more may still be added.
  std::unique_ptr<evp_md_ctx_st, Free> copy(EVP_MD_CTX_new());
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned size = 0;
  UMA_CHECK(copy != nullptr && EVP_MD_CTX_copy_ex(copy.get(), context_.get()) == 1 &&
                EVP_DigestFinal_ex(copy.get(), digest, &size) == 1,
            "OpenSSL cannot finish a SHA-256 digest");
  return to_hex(digest, size);
}

std::string sha256_hex(std::string_view bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned size = 0;
  UMA_CHECK(EVP_Digest(bytes.data(), bytes.size(), digest, &size, EVP_sha256(), nullptr) == 1,
            "OpenSSL cannot compute a SHA-256 digest");
  return to_hex(digest, size);
}

Expected<std::string> sha256_file(const std::string& path) {
  UMA_TRY_ASSIGN(std::string bytes, read_file(path));
  return sha256_hex(bytes);
}

}  // namespace uma
