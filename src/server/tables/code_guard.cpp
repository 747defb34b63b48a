// The code guard: wrong codes, proofs of work and credentials per address.
#include "server/tables/code_guard.h"

#include <openssl/evp.h>

#include <algorithm>

#include "server/tables/hub_detail.h"
#include "server/tables/table.h"

namespace makruk::server {

bool CodeGuard::guess_allowed(const std::string& ip, bool wrong) {
  return wrong_codes_.allow(ip, now_(), limits_.wrong_codes_per_minute, wrong);
}

bool CodeGuard::credential_allowed(const std::string& ip) {
  return guess_allowed(ip) || credentials_.allow(ip, now_(), limits_.wrong_codes_per_minute, false);
}

void CodeGuard::wrong_credential(const std::string& ip) {
  if (!guess_allowed(ip)) credentials_.allow(ip, now_(), limits_.wrong_codes_per_minute);
}

void CodeGuard::proof_missed(const std::string& ip) { proof_misses_.allow(ip, now_(), limits_.wrong_codes_per_minute); }

int CodeGuard::proof_bits(const std::string& ip) {
  if (limits_.proof_bits <= 0) return 0;
  // Another minute's worth of wrong codes with proofs: sixteen times the work.
  bool more = !proof_misses_.allow(ip, now_(), limits_.wrong_codes_per_minute, false);
  return std::min(limits_.proof_bits + (more ? 4 : 0), 30);
}

std::string CodeGuard::proof_challenge() { return std::to_string(now_()) + "." + random_token().substr(0, 16); }

bool CodeGuard::proof_valid(const std::string& proof, const std::string& ip) {
  const int bits = proof_bits(ip);
  if (bits <= 0 || proof.size() > 80) return false;
  const size_t dot1 = proof.find('.'), dot2 = proof.rfind('.');
  if (dot1 == std::string::npos || dot2 == dot1 || dot1 == 0 || dot1 > 15) return false;
  int64_t issued = 0;
  for (size_t i = 0; i < dot1; ++i) {
    if (proof[i] < '0' || proof[i] > '9') return false;
    issued = issued * 10 + (proof[i] - '0');
  }
  const int64_t t = now_();
  if (issued < t - detail::MINUTE_MS || issued > t + 5000) return false;
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  EVP_Digest(proof.data(), proof.size(), digest, &n, EVP_sha256(), nullptr);
  for (int i = 0; i < bits; ++i)
    if (digest[i / 8] & (0x80 >> (i % 8))) return false;
  // Once per stamp: its use is remembered for a minute, by when it is too old.
  return proof_stamps_.allow(proof.substr(0, dot2), t, 1);
}

std::array<std::pair<AddressLimiter*, const char*>, 4> CodeGuard::limiters() {
  return {{{&wrong_codes_, "wrong-codes"},
           {&proof_misses_, "proof-misses"},
           {&proof_stamps_, "proof"},
           {&credentials_, "credentials"}}};
}

void CodeGuard::share(Bus* bus) {
  for (const auto& [limiter, name] : limiters()) limiter->share(bus, name);
}

void CodeGuard::count_with(CodeGuard& first) {
  auto mine = limiters(), theirs = first.limiters();
  for (size_t i = 0; i < mine.size(); ++i) mine[i].first->count_with(*theirs[i].first);
}

int CodeGuard::asking() {
  int n = 0;
  for (const auto& [limiter, name] : limiters()) n += limiter->asking();
  return n;
}

void CodeGuard::sweep(int64_t now) {
  for (const auto& [limiter, name] : limiters()) limiter->sweep(now);
}

}  // namespace makruk::server
