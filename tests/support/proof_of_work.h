// The proof of work a page does for a typed table code (web/src/shared/proof.ts), done
// the same way in tests: a nonce whose SHA-256 with the stamp starts with enough
// zero bits.
#pragma once

#include <openssl/evp.h>

#include <string>

namespace makruk::testing_pow {

// Leading zero bits of the SHA-256 of `text`.
inline int zero_bits(const std::string& text) {
  unsigned char d[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  EVP_Digest(text.data(), text.size(), d, &n, EVP_sha256(), nullptr);
  int bits = 0;
  for (unsigned i = 0; i < n && bits == int(8 * i); ++i)
    for (int b = 7; b >= 0 && !(d[i] >> b & 1); --b) ++bits;
  return bits;
}

// "STAMP.NONCE" with `bits` to `below` leading zero bits (below: to make a proof
// that is just too weak).
inline std::string solve(const std::string& stamp, int bits, int below = 256) {
  for (int nonce = 0;; ++nonce) {
    std::string proof = stamp + "." + std::to_string(nonce);
    const int z = zero_bits(proof);
    if (z >= bits && z < below) return proof;
  }
}

}  // namespace makruk::testing_pow
