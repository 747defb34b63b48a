// libFuzzer target for the Web Push code that reads untrusted bytes: base64url,
// push message bodies (aes128gcm), VAPID headers and endpoint URLs. The first
// byte picks the parser; nothing may crash, and the round trips must hold.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "server/push/webpush.h"

using namespace makruk::server::webpush;

namespace {

#define CHECK(cond)                 \
  do {                              \
    if (!(cond)) __builtin_trap();  \
  } while (0)

const KeyPair& browser_key() {
  static const KeyPair key = [] {
    std::string scalar;
    for (int i = 1; i <= 32; ++i) scalar += char(i);
    return *KeyPair::from_private(scalar);
  }();
  return key;
}
const std::string AUTH = "0123456789abcdef";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view in(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::string error;
  switch (data[0] % 5) {
    case 0: {  // base64url both ways
      if (auto bytes = b64url_decode(in)) CHECK(b64url_decode(b64url_encode(*bytes)) == bytes);
      CHECK(b64url_decode(b64url_encode(in)) == std::string(in));
      break;
    }
    case 1: {  // a push body from anywhere
      auto plain = decrypt(in, browser_key(), AUTH, &error);
      CHECK(plain || !error.empty());
      break;
    }
    case 2: {  // what we encrypt, the browser reads back
      if (in.size() > 4079) break;
      std::string body = encrypt(in, browser_key().public_raw(), AUTH);
      auto plain = decrypt(body, browser_key(), AUTH, &error);
      CHECK(plain && *plain == in);
      break;
    }
    case 3: {  // an Authorization header
      bool ok = verify_vapid(in, "https://push.example.net", 1764460800, &error);
      CHECK(ok || !error.empty());
      break;
    }
    default: {  // an endpoint URL
      std::string origin = origin_of(in);
      CHECK(origin.empty() || origin.rfind("http://", 0) == 0 || origin.rfind("https://", 0) == 0);
      CHECK(origin.size() <= in.size());
      break;
    }
  }
  return 0;
}
