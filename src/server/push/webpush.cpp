#include "server/push/webpush.h"

#include <curl/curl.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <boost/json.hpp>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "server/text.h"

namespace makruk::server::webpush {

namespace {

// unique_ptr for OpenSSL objects, freed by the matching *_free.
template <auto Free>
struct Deleter {
  template <class T>
  void operator()(T* p) const { Free(p); }
};
template <class T, auto Free>
using Ptr = std::unique_ptr<T, Deleter<Free>>;
using Pkey = Ptr<EVP_PKEY, EVP_PKEY_free>;
using PkeyCtx = Ptr<EVP_PKEY_CTX, EVP_PKEY_CTX_free>;
using Bn = Ptr<BIGNUM, BN_clear_free>;

const unsigned char* bytes(std::string_view s) { return reinterpret_cast<const unsigned char*>(s.data()); }

std::shared_ptr<void> share(EVP_PKEY* p) {
  return std::shared_ptr<void>(p, [](void* q) { EVP_PKEY_free(static_cast<EVP_PKEY*>(q)); });
}

EVP_PKEY* pkey_of(const KeyPair& k) { return static_cast<EVP_PKEY*>(k.evp()); }

// Only P-256 keys are accepted anywhere (ES256, RFC 8291).
bool is_p256(EVP_PKEY* p) {
  if (!p || !EVP_PKEY_is_a(p, "EC")) return false;
  char name[64] = {};
  size_t len = 0;
  if (EVP_PKEY_get_utf8_string_param(p, OSSL_PKEY_PARAM_GROUP_NAME, name, sizeof name, &len) != 1) return false;
  return std::string_view(name, len) == "prime256v1" || std::string_view(name, len) == "P-256";
}

// An EC key from OSSL_PARAMs built by `fill`; null on failure.
template <class Fill>
EVP_PKEY* ec_from_data(int selection, Fill fill) {
  Ptr<OSSL_PARAM_BLD, OSSL_PARAM_BLD_free> bld(OSSL_PARAM_BLD_new());
  if (!bld || OSSL_PARAM_BLD_push_utf8_string(bld.get(), OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0) != 1 ||
      !fill(bld.get()))
    return nullptr;
  Ptr<OSSL_PARAM, OSSL_PARAM_free> params(OSSL_PARAM_BLD_to_param(bld.get()));
  PkeyCtx ctx(EVP_PKEY_CTX_new_from_name(nullptr, "EC", nullptr));
  EVP_PKEY* out = nullptr;
  if (!params || !ctx || EVP_PKEY_fromdata_init(ctx.get()) != 1 ||
      EVP_PKEY_fromdata(ctx.get(), &out, selection, params.get()) != 1) {
    ERR_clear_error();
    return nullptr;
  }
  return out;
}

// A public key from its 65-byte uncompressed point; null when it is not a
// point on P-256 (OpenSSL checks that while decoding it).
Pkey public_from_raw(std::string_view raw) {
  if (raw.size() != 65 || raw[0] != 0x04) return nullptr;
  return Pkey(ec_from_data(EVP_PKEY_PUBLIC_KEY, [&](OSSL_PARAM_BLD* b) {
    return OSSL_PARAM_BLD_push_octet_string(b, OSSL_PKEY_PARAM_PUB_KEY, raw.data(), raw.size()) == 1;
  }));
}

std::string bn_bytes(const BIGNUM* bn, int width) {
  std::string out(width, '\0');
  if (BN_bn2binpad(bn, reinterpret_cast<unsigned char*>(out.data()), width) != width) return {};
  return out;
}

std::string ecdh(EVP_PKEY* priv, EVP_PKEY* peer) {
  PkeyCtx ctx(EVP_PKEY_CTX_new_from_pkey(nullptr, priv, nullptr));
  size_t len = 0;
  if (!ctx || EVP_PKEY_derive_init(ctx.get()) != 1 || EVP_PKEY_derive_set_peer(ctx.get(), peer) != 1 ||
      EVP_PKEY_derive(ctx.get(), nullptr, &len) != 1) {
    ERR_clear_error();
    return {};
  }
  std::string out(len, '\0');
  if (EVP_PKEY_derive(ctx.get(), reinterpret_cast<unsigned char*>(out.data()), &len) != 1) {
    ERR_clear_error();
    return {};
  }
  out.resize(len);
  return out;
}

// HKDF-SHA256 (RFC 5869), extract and expand.
std::string hkdf(std::string_view salt, std::string_view ikm, std::string_view info, size_t len) {
  Ptr<EVP_KDF, EVP_KDF_free> kdf(EVP_KDF_fetch(nullptr, "HKDF", nullptr));
  Ptr<EVP_KDF_CTX, EVP_KDF_CTX_free> ctx(kdf ? EVP_KDF_CTX_new(kdf.get()) : nullptr);
  if (!ctx) throw std::runtime_error("webpush: HKDF unavailable");
  auto octets = [](const char* name, std::string_view s) {
    return OSSL_PARAM_construct_octet_string(name, const_cast<char*>(s.data()), s.size());
  };
  OSSL_PARAM params[] = {
      OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, const_cast<char*>("SHA256"), 0),
      octets(OSSL_KDF_PARAM_KEY, ikm), octets(OSSL_KDF_PARAM_SALT, salt), octets(OSSL_KDF_PARAM_INFO, info),
      OSSL_PARAM_construct_end()};
  std::string out(len, '\0');
  if (EVP_KDF_derive(ctx.get(), reinterpret_cast<unsigned char*>(out.data()), len, params) != 1) {
    ERR_clear_error();
    throw std::runtime_error("webpush: HKDF failed");
  }
  return out;
}

// The content-encryption key and nonce of RFC 8291 §3.4 / RFC 8188 §2.2.
struct Keys {
  std::string cek, nonce;
};
Keys derive_keys(std::string_view shared, std::string_view auth, std::string_view ua_public,
                 std::string_view as_public, std::string_view salt) {
  std::string key_info("WebPush: info\0", 14);
  key_info.append(ua_public).append(as_public);
  const std::string ikm = hkdf(auth, shared, key_info, 32);
  return {hkdf(salt, ikm, std::string_view("Content-Encoding: aes128gcm\0", 28), 16),
          hkdf(salt, ikm, std::string_view("Content-Encoding: nonce\0", 24), 12)};
}

constexpr size_t kHeader = 16 + 4 + 1 + 65;  // salt, rs, idlen, keyid
constexpr size_t kTag = 16;

const char kB64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

bool fail(std::string* error, std::string message) {
  if (error) *error = std::move(message);
  return false;
}

// ES256 wants the raw r || s (RFC 7518 §3.4); OpenSSL signs and verifies DER.
std::string der_to_raw(const unsigned char* der, size_t len) {
  Ptr<ECDSA_SIG, ECDSA_SIG_free> sig(d2i_ECDSA_SIG(nullptr, &der, static_cast<long>(len)));
  if (!sig) return {};
  const BIGNUM *r = nullptr, *s = nullptr;
  ECDSA_SIG_get0(sig.get(), &r, &s);
  std::string rs = bn_bytes(r, 32), ss = bn_bytes(s, 32);
  return rs.empty() || ss.empty() ? std::string() : rs + ss;
}

std::string raw_to_der(std::string_view raw) {
  Ptr<ECDSA_SIG, ECDSA_SIG_free> sig(ECDSA_SIG_new());
  BIGNUM* r = BN_bin2bn(bytes(raw), 32, nullptr);
  BIGNUM* s = BN_bin2bn(bytes(raw) + 32, 32, nullptr);
  if (!sig || !r || !s || ECDSA_SIG_set0(sig.get(), r, s) != 1) {
    BN_free(r);
    BN_free(s);
    return {};
  }
  const int len = i2d_ECDSA_SIG(sig.get(), nullptr);
  if (len <= 0) return {};
  std::string der(len, '\0');
  auto* p = reinterpret_cast<unsigned char*>(der.data());
  return i2d_ECDSA_SIG(sig.get(), &p) == len ? der : std::string();
}

}  // namespace

// ---------------------------------------------------------------- base64url

std::string b64url_encode(std::string_view in) {
  std::string out;
  out.reserve((in.size() * 4 + 2) / 3);
  size_t i = 0;
  for (; i + 3 <= in.size(); i += 3) {
    const uint32_t v = uint32_t(uint8_t(in[i])) << 16 | uint32_t(uint8_t(in[i + 1])) << 8 | uint8_t(in[i + 2]);
    out += kB64[v >> 18];
    out += kB64[(v >> 12) & 63];
    out += kB64[(v >> 6) & 63];
    out += kB64[v & 63];
  }
  if (const size_t rest = in.size() - i; rest > 0) {
    uint32_t v = uint32_t(uint8_t(in[i])) << 16;
    if (rest == 2) v |= uint32_t(uint8_t(in[i + 1])) << 8;
    out += kB64[v >> 18];
    out += kB64[(v >> 12) & 63];
    if (rest == 2) out += kB64[(v >> 6) & 63];
  }
  return out;
}

std::optional<std::string> b64url_decode(std::string_view text) {
  size_t n = text.size();
  while (n > 0 && text[n - 1] == '=') --n;
  const size_t pad = text.size() - n;
  // Padding, when present, must complete the last quantum.
  if (pad > 2 || (pad > 0 && text.size() % 4 != 0) || n % 4 == 1) return std::nullopt;
  std::string out;
  out.reserve(n * 3 / 4);
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i < n; ++i) {
    const char c = text[i];
    int v;
    if (c >= 'A' && c <= 'Z') v = c - 'A';
    else if (c >= 'a' && c <= 'z') v = c - 'a' + 26;
    else if (c >= '0' && c <= '9') v = c - '0' + 52;
    else if (c == '-') v = 62;
    else if (c == '_') v = 63;
    else return std::nullopt;
    acc = (acc << 6) | uint32_t(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xff);
    }
  }
  // Unused low bits must be zero: one spelling per byte string (no
  // malleable signatures or keys).
  if (bits > 0 && (acc & ((1u << bits) - 1)) != 0) return std::nullopt;
  return out;
}

// ------------------------------------------------------------------ KeyPair

KeyPair KeyPair::generate() {
  EVP_PKEY* p = EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256");
  if (!p) throw std::runtime_error("webpush: cannot generate a P-256 key");
  KeyPair k;
  k.key_ = share(p);
  return k;
}

std::optional<KeyPair> KeyPair::from_private(std::string_view raw32) {
  if (raw32.size() != 32) return std::nullopt;
  Bn d(BN_bin2bn(bytes(raw32), 32, nullptr));
  Ptr<EC_GROUP, EC_GROUP_free> group(EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1));
  if (!d || !group) return std::nullopt;
  // A private scalar is in [1, n-1].
  if (BN_is_zero(d.get()) || BN_cmp(d.get(), EC_GROUP_get0_order(group.get())) >= 0) return std::nullopt;
  // The provider does not derive the public point on import: compute it.
  Ptr<EC_POINT, EC_POINT_free> point(EC_POINT_new(group.get()));
  unsigned char pub[65];
  if (!point || EC_POINT_mul(group.get(), point.get(), d.get(), nullptr, nullptr, nullptr) != 1 ||
      EC_POINT_point2oct(group.get(), point.get(), POINT_CONVERSION_UNCOMPRESSED, pub, sizeof pub, nullptr) !=
          sizeof pub) {
    ERR_clear_error();
    return std::nullopt;
  }
  EVP_PKEY* p = ec_from_data(EVP_PKEY_KEYPAIR, [&](OSSL_PARAM_BLD* b) {
    return OSSL_PARAM_BLD_push_BN(b, OSSL_PKEY_PARAM_PRIV_KEY, d.get()) == 1 &&
           OSSL_PARAM_BLD_push_octet_string(b, OSSL_PKEY_PARAM_PUB_KEY, pub, sizeof pub) == 1;
  });
  if (!p) return std::nullopt;
  KeyPair k;
  k.key_ = share(p);
  return k;
}

std::optional<KeyPair> KeyPair::from_pem(std::string_view pem) {
  Ptr<BIO, BIO_free> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  // A password callback that refuses: never prompt on a terminal for an encrypted file.
  pem_password_cb* no_password = [](char*, int, int, void*) { return 0; };
  EVP_PKEY* p = bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, no_password, nullptr) : nullptr;
  ERR_clear_error();
  if (!p) return std::nullopt;
  if (!is_p256(p)) {
    EVP_PKEY_free(p);
    return std::nullopt;
  }
  KeyPair k;
  k.key_ = share(p);
  return k;
}

std::string KeyPair::public_raw() const {
  EVP_PKEY* p = pkey_of(*this);
  if (!p) return {};
  // X and Y rather than the encoded point, whose form (compressed or not)
  // depends on where the key came from.
  BIGNUM *x = nullptr, *y = nullptr;
  const bool ok = EVP_PKEY_get_bn_param(p, OSSL_PKEY_PARAM_EC_PUB_X, &x) == 1 &&
                  EVP_PKEY_get_bn_param(p, OSSL_PKEY_PARAM_EC_PUB_Y, &y) == 1;
  Bn xs(x), ys(y);
  if (!ok) {
    ERR_clear_error();
    return {};
  }
  std::string xb = bn_bytes(x, 32), yb = bn_bytes(y, 32);
  if (xb.empty() || yb.empty()) return {};
  return '\x04' + xb + yb;
}

std::string KeyPair::private_raw() const {
  EVP_PKEY* p = pkey_of(*this);
  BIGNUM* d = nullptr;
  if (!p || EVP_PKEY_get_bn_param(p, OSSL_PKEY_PARAM_PRIV_KEY, &d) != 1) {
    ERR_clear_error();
    return {};
  }
  Bn owned(d);
  return bn_bytes(d, 32);
}

std::string KeyPair::to_pem() const {
  EVP_PKEY* p = pkey_of(*this);
  Ptr<BIO, BIO_free> bio(BIO_new(BIO_s_mem()));
  if (!p || !bio || PEM_write_bio_PrivateKey(bio.get(), p, nullptr, nullptr, 0, nullptr, nullptr) != 1) {
    ERR_clear_error();
    return {};
  }
  char* data = nullptr;
  const long len = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, len > 0 ? static_cast<size_t>(len) : 0);
}

KeyPair load_or_create_vapid(const std::string& dir) {
  namespace fs = std::filesystem;
  const fs::path path = fs::path(dir) / "vapid.pem";
  auto read = [&]() -> KeyPair {
    std::ifstream in(path, std::ios::binary);
    if (!in.is_open()) throw std::runtime_error("cannot read " + path.string());
    std::stringstream text;
    text << in.rdbuf();
    auto key = KeyPair::from_pem(text.str());
    if (!key) throw std::runtime_error(path.string() + " is not a P-256 private key");
    return *key;
  };
  std::error_code ec;
  if (fs::exists(path, ec)) return read();
  fs::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create " + dir + ": " + ec.message());

  // Written whole to a private temporary, then linked into place: a crash
  // leaves no half-written key, and of two racing starts the first one wins.
  const KeyPair key = KeyPair::generate();
  const std::string pem = key.to_pem();
  static std::atomic<int> serial{0};
  const fs::path tmp = fs::path(dir) / (".vapid.pem." + std::to_string(getpid()) + "." + std::to_string(++serial));
  ::unlink(tmp.c_str());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) throw std::runtime_error("cannot write " + tmp.string() + ": " + std::strerror(errno));
  bool ok = ::fchmod(fd, 0600) == 0;
  for (size_t done = 0; ok && done < pem.size();) {
    const ssize_t n = ::write(fd, pem.data() + done, pem.size() - done);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) done += static_cast<size_t>(n);
  }
  ok = ::fsync(fd) == 0 && ok;
  ok = ::close(fd) == 0 && ok;
  const int linked = ok ? ::link(tmp.c_str(), path.c_str()) : -1;
  const int link_errno = errno;
  ::unlink(tmp.c_str());
  if (linked == 0) return key;
  if (ok && link_errno == EEXIST) return read();
  throw std::runtime_error("cannot write " + path.string() + ": " + std::strerror(ok ? link_errno : errno));
}

// --------------------------------------------------------------- encryption

std::string encrypt(std::string_view plaintext, std::string_view ua_public, std::string_view auth_secret,
                    const KeyPair* as_key, std::string_view salt, uint32_t record_size) {
  Pkey ua = public_from_raw(ua_public);
  if (!ua) throw std::invalid_argument("webpush: the subscription key is not a P-256 point");
  if (auth_secret.size() != 16) throw std::invalid_argument("webpush: the auth secret must be 16 bytes");
  if (!salt.empty() && salt.size() != 16) throw std::invalid_argument("webpush: the salt must be 16 bytes");
  if (record_size < 18) throw std::invalid_argument("webpush: record size below 18");
  if (plaintext.size() > record_size - 17) throw std::invalid_argument("webpush: payload too large");

  std::optional<KeyPair> fresh;
  if (!as_key) as_key = &fresh.emplace(KeyPair::generate());
  const std::string as_public = as_key->public_raw();
  if (!pkey_of(*as_key) || as_public.size() != 65)
    throw std::invalid_argument("webpush: the application server key is unusable");
  std::string salt_bytes(salt);
  if (salt_bytes.empty()) {
    salt_bytes.resize(16);
    if (RAND_bytes(reinterpret_cast<unsigned char*>(salt_bytes.data()), 16) != 1)
      throw std::runtime_error("webpush: no randomness");
  }
  const std::string shared = ecdh(pkey_of(*as_key), ua.get());
  if (shared.size() != 32) throw std::invalid_argument("webpush: key agreement failed");
  const Keys keys = derive_keys(shared, auth_secret, ua_public, as_public, salt_bytes);

  // Header: salt || rs || idlen || keyid (RFC 8188 §2.1).
  std::string out = salt_bytes;
  for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>((record_size >> shift) & 0xff);
  out += static_cast<char>(65);
  out += as_public;

  // One record: the plaintext, then the last-record delimiter 0x02.
  std::string record(plaintext);
  record += '\x02';
  Ptr<EVP_CIPHER_CTX, EVP_CIPHER_CTX_free> ctx(EVP_CIPHER_CTX_new());
  std::string sealed(record.size() + kTag, '\0');
  auto* dst = reinterpret_cast<unsigned char*>(sealed.data());
  int len = 0, fin = 0;
  if (!ctx || EVP_EncryptInit_ex(ctx.get(), EVP_aes_128_gcm(), nullptr, bytes(keys.cek), bytes(keys.nonce)) != 1 ||
      EVP_EncryptUpdate(ctx.get(), dst, &len, bytes(record), static_cast<int>(record.size())) != 1 ||
      EVP_EncryptFinal_ex(ctx.get(), dst + len, &fin) != 1 ||
      EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, kTag, dst + record.size()) != 1) {
    ERR_clear_error();
    throw std::runtime_error("webpush: AES-GCM failed");
  }
  return out + sealed;
}

std::optional<std::string> decrypt(std::string_view body, const KeyPair& ua_key, std::string_view auth_secret,
                                   std::string* error) {
  auto no = [&](std::string message) -> std::optional<std::string> {
    fail(error, std::move(message));
    return std::nullopt;
  };
  if (!pkey_of(ua_key)) return no("no user-agent key");
  if (auth_secret.size() != 16) return no("the auth secret must be 16 bytes");
  if (body.size() < kHeader + 1 + kTag) return no("body too short");
  const std::string_view salt = body.substr(0, 16);
  uint32_t rs = 0;
  for (int i = 16; i < 20; ++i) rs = rs << 8 | uint8_t(body[i]);
  if (rs < 18) return no("record size below 18");
  if (uint8_t(body[20]) != 65) return no("key id is not a 65-byte public key");
  const std::string_view as_public = body.substr(21, 65);
  const std::string_view record = body.substr(kHeader);
  if (record.size() > rs) return no("more than one record");
  Pkey as = public_from_raw(as_public);
  if (!as) return no("key id is not a P-256 point");
  const std::string ua_public = ua_key.public_raw();
  const std::string shared = ecdh(pkey_of(ua_key), as.get());
  if (shared.size() != 32 || ua_public.size() != 65) return no("key agreement failed");
  Keys keys;
  try {
    keys = derive_keys(shared, auth_secret, ua_public, as_public, salt);
  } catch (const std::exception& e) {
    return no(e.what());
  }

  const size_t n = record.size() - kTag;
  std::string plain(n, '\0');
  auto* dst = reinterpret_cast<unsigned char*>(plain.data());
  std::string tag(record.substr(n));
  Ptr<EVP_CIPHER_CTX, EVP_CIPHER_CTX_free> ctx(EVP_CIPHER_CTX_new());
  int len = 0, fin = 0;
  if (!ctx || EVP_DecryptInit_ex(ctx.get(), EVP_aes_128_gcm(), nullptr, bytes(keys.cek), bytes(keys.nonce)) != 1 ||
      EVP_DecryptUpdate(ctx.get(), dst, &len, bytes(record), static_cast<int>(n)) != 1 ||
      EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_TAG, kTag, tag.data()) != 1 ||
      EVP_DecryptFinal_ex(ctx.get(), dst + len, &fin) != 1) {
    ERR_clear_error();
    return no("authentication failed (wrong key, auth secret or a damaged body)");
  }
  // Padding: the delimiter is the last non-zero byte; 0x02 marks the last record.
  size_t end = plain.find_last_not_of('\0');
  if (end == std::string::npos) return no("no padding delimiter");
  if (plain[end] != '\x02') return no("not a last record (delimiter " + std::to_string(uint8_t(plain[end])) + ")");
  plain.resize(end);
  return plain;
}

// -------------------------------------------------------------------- VAPID

std::string vapid_authorization(const KeyPair& key, std::string_view audience, std::string_view subject,
                                int64_t expires_unix_s) {
  EVP_PKEY* p = pkey_of(key);
  if (!p) throw std::invalid_argument("webpush: no VAPID key");
  const boost::json::object claims{{"aud", audience}, {"exp", expires_unix_s}, {"sub", subject}};
  const std::string input =
      b64url_encode(R"({"typ":"JWT","alg":"ES256"})") + "." + b64url_encode(boost::json::serialize(claims));

  Ptr<EVP_MD_CTX, EVP_MD_CTX_free> md(EVP_MD_CTX_new());
  size_t len = 0;
  if (!md || EVP_DigestSignInit_ex(md.get(), nullptr, "SHA256", nullptr, nullptr, p, nullptr) != 1 ||
      EVP_DigestSign(md.get(), nullptr, &len, bytes(input), input.size()) != 1) {
    ERR_clear_error();
    throw std::runtime_error("webpush: cannot sign");
  }
  std::string der(len, '\0');
  if (EVP_DigestSign(md.get(), reinterpret_cast<unsigned char*>(der.data()), &len, bytes(input), input.size()) != 1) {
    ERR_clear_error();
    throw std::runtime_error("webpush: cannot sign");
  }
  const std::string raw = der_to_raw(bytes(der), len);
  if (raw.size() != 64) throw std::runtime_error("webpush: bad ECDSA signature");
  return "vapid t=" + input + "." + b64url_encode(raw) + ", k=" + b64url_encode(key.public_raw());
}

bool verify_vapid(std::string_view header, std::string_view audience, int64_t now_unix_s, std::string* error) {
  // "vapid t=<jwt>, k=<key>": the scheme, then comma-separated parameters.
  header = trim(header);
  const size_t sp = header.find_first_of(" \t");
  if (sp == std::string_view::npos || lower(header.substr(0, sp)) != "vapid")
    return fail(error, "not a vapid authorization");
  std::map<std::string, std::string_view> params;
  std::string_view rest = header.substr(sp);
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    const std::string_view item = trim(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) return fail(error, "malformed parameter");
    std::string_view value = trim(item.substr(eq + 1));
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') value = value.substr(1, value.size() - 2);
    if (!params.emplace(lower(trim(item.substr(0, eq))), value).second) return fail(error, "repeated parameter");
  }
  if (!params.count("t") || !params.count("k")) return fail(error, "missing t= or k=");

  const std::string_view jwt = params["t"];
  const size_t dot1 = jwt.find('.');
  const size_t dot2 = dot1 == std::string_view::npos ? dot1 : jwt.find('.', dot1 + 1);
  if (dot2 == std::string_view::npos || jwt.find('.', dot2 + 1) != std::string_view::npos)
    return fail(error, "the token is not a JWS compact serialization");
  const auto head = b64url_decode(jwt.substr(0, dot1));
  const auto body = b64url_decode(jwt.substr(dot1 + 1, dot2 - dot1 - 1));
  const auto sig = b64url_decode(jwt.substr(dot2 + 1));
  const auto k = b64url_decode(params["k"]);
  if (!head || !body || !sig || !k) return fail(error, "bad base64url");
  if (sig->size() != 64) return fail(error, "an ES256 signature is 64 bytes");
  Pkey pub = public_from_raw(*k);
  if (!pub) return fail(error, "k is not a P-256 public key");

  boost::system::error_code ec;
  const boost::json::value hv = boost::json::parse(*head, ec);
  const boost::json::object* ho = ec ? nullptr : hv.if_object();
  if (!ho) return fail(error, "the JWT header is not a JSON object");
  const auto* alg = ho->if_contains("alg");
  if (!alg || !alg->is_string() || alg->get_string() != "ES256") return fail(error, "alg is not ES256");
  if (const auto* typ = ho->if_contains("typ"); typ && (!typ->is_string() || typ->get_string() != "JWT"))
    return fail(error, "typ is not JWT");

  const std::string der = raw_to_der(*sig);
  const std::string_view input = jwt.substr(0, dot2);
  Ptr<EVP_MD_CTX, EVP_MD_CTX_free> md(EVP_MD_CTX_new());
  const bool valid = !der.empty() && md &&
                     EVP_DigestVerifyInit_ex(md.get(), nullptr, "SHA256", nullptr, nullptr, pub.get(), nullptr) == 1 &&
                     EVP_DigestVerify(md.get(), bytes(der), der.size(), bytes(input), input.size()) == 1;
  ERR_clear_error();
  if (!valid) return fail(error, "bad signature");

  const boost::json::value cv = boost::json::parse(*body, ec);
  const boost::json::object* claims = ec ? nullptr : cv.if_object();
  if (!claims) return fail(error, "the JWT claims are not a JSON object");
  const auto* aud = claims->if_contains("aud");
  if (!aud || !aud->is_string() || aud->get_string() != audience) return fail(error, "aud does not match");
  const auto* exp = claims->if_contains("exp");
  double e;
  if (!exp) return fail(error, "no exp");
  if (exp->is_int64()) e = double(exp->get_int64());
  else if (exp->is_uint64()) e = double(exp->get_uint64());
  else if (exp->is_double() && std::isfinite(exp->get_double())) e = exp->get_double();
  else return fail(error, "exp is not a number");
  if (e <= double(now_unix_s)) return fail(error, "expired");
  if (e > double(now_unix_s) + 24 * 3600) return fail(error, "exp more than 24 hours ahead");
  const auto* sub = claims->if_contains("sub");
  if (!sub || !sub->is_string() || sub->get_string().empty()) return fail(error, "no sub");
  return true;
}

std::string origin_of(std::string_view url) {
  const size_t colon = url.find("://");
  if (colon == std::string_view::npos) return {};
  const std::string scheme = lower(url.substr(0, colon));
  if (scheme != "http" && scheme != "https") return {};
  std::string_view auth = url.substr(colon + 3);
  auth = auth.substr(0, auth.find_first_of("/?#"));
  if (const size_t at = auth.rfind('@'); at != std::string_view::npos) auth = auth.substr(at + 1);  // user info
  std::string_view host = auth, port;
  if (!auth.empty() && auth.front() == '[') {  // IPv6 literal
    const size_t close = auth.find(']');
    if (close == std::string_view::npos) return {};
    host = auth.substr(0, close + 1);
    const std::string_view after = auth.substr(close + 1);
    if (!after.empty() && after.front() != ':') return {};
    if (!after.empty()) port = after.substr(1);
    for (char c : host.substr(1, host.size() - 2))
      if (!std::isxdigit(static_cast<unsigned char>(c)) && c != ':' && c != '.') return {};
  } else {
    if (const size_t c = auth.find(':'); c != std::string_view::npos) {
      host = auth.substr(0, c);
      port = auth.substr(c + 1);
    }
    for (char c : host)
      if (!std::isalnum(static_cast<unsigned char>(c)) && !std::strchr("-._~%!$&'()*+,;=", c)) return {};
  }
  if (host.empty() || host == "[]") return {};
  std::string out = scheme + "://" + lower(host);
  if (!port.empty()) {
    if (port.size() > 5 || !std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return {};
    const int p = std::stoi(std::string(port));
    if (p > 65535) return {};
    // The default port is not part of a serialized origin (RFC 6454 §6.2).
    if (!(scheme == "http" && p == 80) && !(scheme == "https" && p == 443)) out += ":" + std::to_string(p);
  }
  return out;
}

// ---------------------------------------------------------------- addresses

namespace {

// IPv4 blocks no push goes to: "this network", private networks, shared
// address space (CGNAT), loopback, link-local, IETF protocol assignments,
// documentation (TEST-NET-1 to 3), benchmarking, multicast and the reserved
// 240/4, which holds the broadcast address 255.255.255.255.
struct V4Block {
  uint32_t net;
  int bits;
};
constexpr V4Block kBlockedV4[] = {
    {0x00000000, 8},  {0x0a000000, 8},  {0x64400000, 10}, {0x7f000000, 8},  {0xa9fe0000, 16},
    {0xac100000, 12}, {0xc0000000, 24}, {0xc0000200, 24}, {0xc0a80000, 16}, {0xc6120000, 15},
    {0xc6336400, 24}, {0xcb007100, 24}, {0xe0000000, 4},  {0xf0000000, 4},
};

bool public_v4(const unsigned char* a) {
  const uint32_t v = uint32_t(a[0]) << 24 | uint32_t(a[1]) << 16 | uint32_t(a[2]) << 8 | a[3];
  return std::none_of(std::begin(kBlockedV4), std::end(kBlockedV4),
                      [&](const V4Block& b) { return v >> (32 - b.bits) == b.net >> (32 - b.bits); });
}

// IPv6 blocks: either refused whole, or carrying an IPv4 address at
// `embedded` (its byte offset) that the IPv4 rules decide for, since a
// connection there ends up at that IPv4 address (mapped addresses on a
// dual-stack socket, NAT64 and 6to4 gateways).
constexpr int kRefused = -1;
struct V6Block {
  unsigned char net[16];
  int bits;
  int embedded;
};
constexpr V6Block kBlockedV6[] = {
    {{}, 96, kRefused},                                     // ::/96: unspecified, loopback, IPv4-compatible
    {{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff}, 96, 12},  // ::ffff:0:0/96, IPv4-mapped
    {{0x00, 0x64, 0xff, 0x9b}, 96, 12},                     // 64:ff9b::/96, NAT64
    {{0x00, 0x64, 0xff, 0x9b, 0x00, 0x01}, 48, kRefused},   // 64:ff9b:1::/48, local-use NAT64
    {{0x01, 0x00}, 64, kRefused},                           // 100::/64, discard only
    {{0x20, 0x01, 0x0d, 0xb8}, 32, kRefused},               // 2001:db8::/32, documentation
    {{0x20, 0x02}, 16, 2},                                  // 2002::/16, 6to4
    {{0xfc}, 7, kRefused},                                  // fc00::/7, unique local
    {{0xfe, 0x80}, 10, kRefused},                           // fe80::/10, link-local
    {{0xfe, 0xc0}, 10, kRefused},                           // fec0::/10, site-local (deprecated)
    {{0xff}, 8, kRefused},                                  // ff00::/8, multicast
};

bool in_block(const unsigned char* a, const V6Block& b) {
  const int whole = b.bits / 8, rest = b.bits % 8;
  if (std::memcmp(a, b.net, whole) != 0) return false;
  return rest == 0 || ((a[whole] ^ b.net[whole]) >> (8 - rest)) == 0;
}

bool public_v6(const unsigned char* a) {
  for (const V6Block& b : kBlockedV6)
    if (in_block(a, b)) return b.embedded != kRefused && public_v4(a + b.embedded);
  return true;
}

}  // namespace

bool is_public_address(const sockaddr* addr, socklen_t len) {
  if (!addr || len < socklen_t(sizeof(sockaddr_in))) return false;
  // Copied out: `addr` may point into storage of another declared type.
  if (addr->sa_family == AF_INET) {
    sockaddr_in in;
    std::memcpy(&in, addr, sizeof in);
    return public_v4(reinterpret_cast<const unsigned char*>(&in.sin_addr));
  }
  if (addr->sa_family == AF_INET6 && len >= socklen_t(sizeof(sockaddr_in6))) {
    sockaddr_in6 in6;
    std::memcpy(&in6, addr, sizeof in6);
    return public_v6(in6.sin6_addr.s6_addr);
  }
  return false;
}

// ------------------------------------------------------------------- Sender

namespace {

using Clock = std::chrono::steady_clock;

bool valid_topic(std::string_view t) {
  // RFC 8030 §5.4: at most 32 characters of the base64url alphabet.
  return !t.empty() && t.size() <= 32 &&
         std::all_of(t.begin(), t.end(), [](char c) { return std::strchr(kB64, c) != nullptr && c != '\0'; });
}

std::string valid_urgency(const std::string& u) {
  return u == "very-low" || u == "low" || u == "normal" || u == "high" ? u : "normal";
}

size_t discard_body(char*, size_t size, size_t n, void*) { return size * n; }

// Picks Retry-After (seconds or an HTTP date) out of the response headers.
size_t on_header(char* data, size_t size, size_t n, void* user) {
  const std::string_view line(data, size * n);
  const size_t colon = line.find(':');
  if (colon != std::string_view::npos && lower(trim(line.substr(0, colon))) == "retry-after") {
    std::string value(trim(line.substr(colon + 1)));
    while (!value.empty() && (value.back() == '\r' || value.back() == '\n')) value.pop_back();
    auto* out = static_cast<int64_t*>(user);
    if (!value.empty() && std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      *out = value.size() > 9 ? 999999999 : std::stoll(value);
    } else if (const time_t when = curl_getdate(value.c_str(), nullptr); when != -1) {
      *out = std::max<int64_t>(0, int64_t(when) - int64_t(std::time(nullptr)));
    }
  }
  return size * n;
}

}  // namespace

struct Sender::Impl {
  struct Job {
    Delivery d;
    int attempts = 0;
    std::string body;  // encrypted once, sent as is on each attempt
  };
  // One request in flight, with what its curl handle points into.
  struct Transfer {
    Job job;
    Ptr<curl_slist, curl_slist_free_all> headers;
    Ptr<CURL, curl_easy_cleanup> easy;  // declared last: cleaned up first
    std::string origin;  // the push service's
    std::string group;   // the delivery's (a table)
    int64_t retry_after_s = -1;
    bool refused = false;  // the address check refused one of its connections
    bool doubtful = false;  // counted among the doubtful services' requests
  };

  KeyPair vapid;
  SenderOptions options;
  Gone on_gone;
  Done on_done;
  Ptr<curl_slist, curl_slist_free_all> resolve;  // options.resolve, as curl takes it

  std::mutex mu;
  std::condition_variable idle;                 // for wait_idle
  std::multimap<Clock::time_point, Job> queue;  // by due time, then by arrival
  std::vector<std::string> turned_away;         // endpoints past max_queue, to report
  size_t taken = 0;                             // jobs out of `queue`, not yet finished or put back
  size_t reporting = 0;                         // turned-away endpoints being reported
  std::atomic<bool> stop{false};
  // Drives every request; its poll is where the thread sleeps, woken by
  // send() and the destructor (curl_multi_wakeup). Keeps a connection cache.
  CURLM* multi = nullptr;
  std::map<CURL*, std::unique_ptr<Transfer>> flying;  // the sender's thread only
  std::map<std::string, size_t> flying_to;  // requests in flight per push service (origin); same thread
  std::map<std::string, size_t> flying_for;  // requests in flight per group (a table); same thread
  // What the sender knows of each push service (same thread).
  struct Service {
    bool answered = false;  // has answered a request well
    int failures = 0;       // requests that failed in a row
    Clock::time_point rested;  // backed off until then
  };
  std::map<std::string, Service> services;
  size_t doubtful_flying = 0;  // requests in flight to doubtful services
  bool doubtful(const std::string& origin) const {
    auto it = services.find(origin);
    return it == services.end() || !it->second.answered || it->second.failures > 0;
  }
  // How many requests this service may have in flight now (0 while it rests).
  size_t allowance(const std::string& origin, Clock::time_point now) const {
    auto it = services.find(origin);
    if (it != services.end() && it->second.rested > now) return 0;
    return doubtful(origin) ? 1 : options.max_per_origin;
  }
  // A request to `origin` ended: answered well (true) or failed.
  void heard(const std::string& origin, bool well) {
    Service& s = services[origin];
    if (well) {
      s = Service{true, 0, {}};
      return;
    }
    if (++s.failures >= options.backoff_after) {
      const int extra = std::min(s.failures - options.backoff_after, 16);
      const int64_t ms = std::min<int64_t>(options.origin_backoff_ms << extra, std::max<int64_t>(options.max_retry_wait_ms, 1));
      s.rested = Clock::now() + std::chrono::milliseconds(ms);
    }
    if (services.size() > 10000) {  // forget services that answered well and are idle
      for (auto it = services.begin(); it != services.end();)
        it = !flying_to.count(it->first) && it->second.failures == 0 ? services.erase(it) : std::next(it);
    }
  }
  std::thread thread;

  void run();
  void start(Job job);
  void complete(std::unique_ptr<Transfer> t, CURLcode result);
  int sleep_ms();
  // Whether a request to this job's push service may start now: within its
  // allowance and its group's share, and a doubtful service only while the
  // doubtful ones hold less than half the slots (`picked`, `group_picked`:
  // those chosen in this round, not yet flying).
  bool may_start(const std::string& origin, const std::string& group, Clock::time_point now, size_t picked = 0,
                 size_t doubtful_picked = 0, size_t group_picked = 0) const {
    auto f = flying_to.find(origin);
    const size_t busy = (f == flying_to.end() ? 0 : f->second) + picked;
    if (busy >= allowance(origin, now)) return false;
    if (!group.empty()) {
      auto g = flying_for.find(group);
      if ((g == flying_for.end() ? 0 : g->second) + group_picked >= options.max_per_group) return false;
    }
    return !doubtful(origin) || doubtful_flying + doubtful_picked < std::max<size_t>(1, options.max_parallel / 2);
  }
  static curl_socket_t open_socket(void* transfer, curlsocktype, curl_sockaddr* address);

  std::atomic<uint64_t> delivered{0}, gone{0}, failed{0}, retries{0};
  void finish(const std::string& endpoint, int status, int attempts) {
    const Finished as = finished_as(status);
    (as == Finished::Delivered ? delivered : as == Finished::Gone ? gone : failed)++;
    try {
      if (on_done) on_done(endpoint, status, attempts);
    } catch (...) {
    }
  }
  // A job taken out of `queue` is finished; or, given as `retry`, put back
  // to be tried again at `at`.
  void settle(Job* retry = nullptr, Clock::time_point at = {}) {
    {
      std::lock_guard lock(mu);
      if (retry && !stop) queue.emplace(at, std::move(*retry));
      --taken;
    }
    idle.notify_all();
  }
};

void Sender::Impl::run() {
  while (!stop) {
    // Due jobs, as many as there are free request slots.
    std::vector<Job> due;
    std::vector<std::string> away;
    {
      std::lock_guard lock(mu);
      away.swap(turned_away);
      reporting = away.size();
      const auto now = Clock::now();
      std::map<std::string, size_t> picked, group_picked;  // per origin and per group, in this round
      size_t doubtful_picked = 0;
      for (auto it = queue.begin();
           it != queue.end() && it->first <= now && flying.size() + due.size() < options.max_parallel;) {
        const std::string origin = origin_of(it->second.d.to.endpoint);
        const std::string& group = it->second.d.group;
        if (!may_start(origin, group, now, picked[origin], doubtful_picked, group.empty() ? 0 : group_picked[group])) {
          ++it;  // waits for one of its service's (or its table's) requests to end, or its rest
          continue;
        }
        ++picked[origin];
        if (!group.empty()) ++group_picked[group];
        if (doubtful(origin)) ++doubtful_picked;
        due.push_back(std::move(it->second));
        it = queue.erase(it);
      }
      taken += due.size();
    }
    for (const std::string& endpoint : away) finish(endpoint, 0, 0);
    if (!away.empty()) {
      {
        std::lock_guard lock(mu);
        reporting = 0;
      }
      idle.notify_all();
    }
    for (Job& job : due) start(std::move(job));

    int running = 0;
    curl_multi_perform(multi, &running);
    bool completed = false;
    int left = 0;
    while (CURLMsg* msg = curl_multi_info_read(multi, &left)) {
      if (msg->msg != CURLMSG_DONE) continue;
      CURL* h = msg->easy_handle;
      const CURLcode result = msg->data.result;  // `msg` is gone once the handle is removed
      const auto it = flying.find(h);
      if (it == flying.end()) continue;
      std::unique_ptr<Transfer> t = std::move(it->second);
      flying.erase(it);
      if (auto f = flying_to.find(t->origin); f != flying_to.end() && --f->second == 0) flying_to.erase(f);
      if (auto g = flying_for.find(t->group); g != flying_for.end() && --g->second == 0) flying_for.erase(g);
      if (t->doubtful) --doubtful_flying;
      curl_multi_remove_handle(multi, h);
      complete(std::move(t), result);
      completed = true;
    }
    // A finished request frees a slot: look at the queue again before sleeping.
    if (completed) continue;
    curl_multi_poll(multi, nullptr, 0, sleep_ms(), nullptr);
  }
  // Stopping: requests in flight are cut, their connections closed.
  for (const auto& [h, t] : flying) curl_multi_remove_handle(multi, h);
  flying.clear();
  flying_to.clear();
  flying_for.clear();
}

// How long the thread may sleep: until the next job is due, when a slot is
// free for it. curl_multi_poll wakes earlier for its own timers and sockets,
// and for send() and the destructor.
int Sender::Impl::sleep_ms() {
  constexpr int kLongest = 60000;
  std::lock_guard lock(mu);
  if (!turned_away.empty()) return 0;
  if (flying.size() >= options.max_parallel) return kLongest;
  // The first job whose service has a free place; the others wait for a
  // request to end, which wakes the poll anyway, or for their service's rest
  // to end.
  const auto now = Clock::now();
  int64_t wait = kLongest;
  for (const auto& [at, job] : queue) {
    const std::string origin = origin_of(job.d.to.endpoint);
    if (auto s = services.find(origin); s != services.end() && s->second.rested > now)
      wait = std::min<int64_t>(wait, std::chrono::ceil<std::chrono::milliseconds>(s->second.rested - now).count());
    if (!may_start(origin, job.d.group, now)) continue;
    wait = std::min<int64_t>(wait, std::chrono::ceil<std::chrono::milliseconds>(at - now).count());
    break;
  }
  return static_cast<int>(std::clamp<int64_t>(wait, 0, kLongest));
}

// Opens a connection's socket only when its address passes
// is_public_address. Checking the address actually connected to, rather than
// the endpoint's host name, covers every spelling of an address (0x7f.1,
// 2130706433, [::ffff:127.0.0.1], ...) and names that resolve to a private
// one, whenever they are resolved.
curl_socket_t Sender::Impl::open_socket(void* transfer, curlsocktype, curl_sockaddr* address) {
  // Push services answer on the HTTPS port; any other port could only reach
  // some other service on a public machine.
  uint16_t port = 0;
  if (address->family == AF_INET && address->addrlen >= sizeof(sockaddr_in))
    port = ntohs(reinterpret_cast<const sockaddr_in*>(&address->addr)->sin_port);
  else if (address->family == AF_INET6 && address->addrlen >= sizeof(sockaddr_in6))
    port = ntohs(reinterpret_cast<const sockaddr_in6*>(&address->addr)->sin6_port);
  if (port != 443 || !is_public_address(&address->addr, address->addrlen)) {
    static_cast<Transfer*>(transfer)->refused = true;
    return CURL_SOCKET_BAD;  // curl goes on with the name's next address, if any
  }
  static_cast<Transfer*>(transfer)->refused = false;  // another address of the name is public
  return ::socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
}

// Encrypts the delivery (on its first attempt) and adds its request to the
// multi handle. A delivery that no attempt could send is finished here.
void Sender::Impl::start(Job job) {
  auto t = std::make_unique<Transfer>();
  t->job = std::move(job);
  const Delivery& d = t->job.d;
  try {
    if (t->job.body.empty()) {
      const auto ua = b64url_decode(d.to.p256dh);
      const auto auth = b64url_decode(d.to.auth);
      if (!ua || !auth) throw std::invalid_argument("undecodable subscription keys");
      const std::string origin = origin_of(d.to.endpoint);
      if (origin.empty()) throw std::invalid_argument("bad endpoint");
      if (!options.allow_private && origin.rfind("https://", 0) != 0) throw std::invalid_argument("plain http");
      t->job.body = encrypt(d.payload, *ua, *auth);
    }
    ++t->job.attempts;
    const int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
    std::vector<std::string> lines = {
        "TTL: " + std::to_string(std::max(0, d.ttl_s)),
        "Content-Encoding: aes128gcm",
        "Content-Type: application/octet-stream",
        "Urgency: " + valid_urgency(d.urgency),
        "Authorization: " + vapid_authorization(vapid, origin_of(d.to.endpoint), options.subject, now + 12 * 3600),
        "Expect:",  // no 100-continue round trip
    };
    if (valid_topic(d.topic)) lines.push_back("Topic: " + d.topic);
    for (const auto& l : lines) {
      curl_slist* next = curl_slist_append(t->headers.get(), l.c_str());
      if (!next) return complete(std::move(t), CURLE_OUT_OF_MEMORY);
      t->headers.release();
      t->headers.reset(next);
    }
  } catch (...) {
    // Bad keys, payload or endpoint: no attempt can succeed.
    finish(d.to.endpoint, 0, t->job.attempts);
    return settle();
  }

  t->easy.reset(curl_easy_init());
  CURL* h = t->easy.get();
  if (!h) return complete(std::move(t), CURLE_FAILED_INIT);
  curl_easy_setopt(h, CURLOPT_URL, d.to.endpoint.c_str());
  curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, options.allow_private ? "http,https" : "https");
  curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
  // No proxy, whatever the environment says: the connection goes straight to
  // the push service, so the address checked is its own and no proxy can
  // carry a request past the check.
  curl_easy_setopt(h, CURLOPT_PROXY, "");
  curl_easy_setopt(h, CURLOPT_NOPROXY, "*");
  if (!options.allow_private) {
    curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, &Impl::open_socket);
    curl_easy_setopt(h, CURLOPT_OPENSOCKETDATA, t.get());
  }
  if (resolve) curl_easy_setopt(h, CURLOPT_RESOLVE, resolve.get());
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  // Removing a request still resolving its host name must not wait for the
  // resolver: the destructor has to return promptly.
  curl_easy_setopt(h, CURLOPT_QUICK_EXIT, 1L);
  curl_easy_setopt(h, CURLOPT_POST, 1L);
  curl_easy_setopt(h, CURLOPT_POSTFIELDS, t->job.body.data());
  curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(t->job.body.size()));
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, t->headers.get());
  curl_easy_setopt(h, CURLOPT_USERAGENT, "makruk-webpush");
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, options.timeout_ms);
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, options.connect_timeout_ms);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, discard_body);
  curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(h, CURLOPT_HEADERDATA, &t->retry_after_s);
  if (curl_multi_add_handle(multi, h) != CURLM_OK) return complete(std::move(t), CURLE_FAILED_INIT);
  t->origin = origin_of(d.to.endpoint);
  ++flying_to[t->origin];
  t->group = d.group;
  if (!t->group.empty()) ++flying_for[t->group];
  t->doubtful = doubtful(t->origin);
  if (t->doubtful) ++doubtful_flying;
  flying.emplace(h, std::move(t));
}

// Sorts out a request that ended: done, gone, or to be tried again later.
void Sender::Impl::complete(std::unique_ptr<Transfer> t, CURLcode result) {
  Job& job = t->job;
  long status = 0;
  if (result == CURLE_OK) curl_easy_getinfo(t->easy.get(), CURLINFO_RESPONSE_CODE, &status);
  if (!t->refused && !t->origin.empty()) heard(t->origin, status != 0 && status != 429 && status < 500);
  if (finished_as(int(status)) == Finished::Gone) {
    try {
      if (on_gone) on_gone(job.d.to.endpoint);
    } catch (...) {
    }
  } else if (((status == 0 && !t->refused) || status == 429 || status >= 500) && job.attempts < options.max_attempts) {
    const double ms = double(options.first_retry_ms) * std::pow(options.backoff, job.attempts - 1);
    double wait_ms = std::isfinite(ms) ? ms : 0;
    if (t->retry_after_s >= 0) wait_ms = std::max(wait_ms, double(t->retry_after_s) * 1000);
    wait_ms = std::clamp(wait_ms, 0.0, double(std::max<int64_t>(0, options.max_retry_wait_ms)));
    ++retries;
    return settle(&job, Clock::now() + std::chrono::milliseconds(int64_t(wait_ms)));
  }
  finish(job.d.to.endpoint, static_cast<int>(status), job.attempts);
  settle();
}

Sender::Sender(KeyPair vapid, SenderOptions options, Gone on_gone, Done on_done) : impl_(std::make_unique<Impl>()) {
  static std::once_flag curl_once;
  std::call_once(curl_once, [] {
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) throw std::runtime_error("webpush: curl_global_init");
  });
  impl_->vapid = std::move(vapid);
  if (!impl_->vapid.evp()) throw std::invalid_argument("webpush: no VAPID key");
  impl_->options = std::move(options);
  impl_->options.max_attempts = std::max(1, impl_->options.max_attempts);
  impl_->options.max_parallel = std::max<size_t>(1, impl_->options.max_parallel);
  for (const std::string& entry : impl_->options.resolve) {
    curl_slist* next = curl_slist_append(impl_->resolve.get(), entry.c_str());
    if (!next) throw std::bad_alloc();
    impl_->resolve.release();
    impl_->resolve.reset(next);
  }
  impl_->on_gone = std::move(on_gone);
  impl_->on_done = std::move(on_done);
  impl_->options.max_per_origin = std::max<size_t>(1, impl_->options.max_per_origin);
  impl_->multi = curl_multi_init();
  if (!impl_->multi) throw std::runtime_error("webpush: curl_multi_init");
  // A few idle connections kept for reuse, and never more open than
  // requests in flight: the server's open files are its connections' too.
  curl_multi_setopt(impl_->multi, CURLMOPT_MAXCONNECTS, 8L);
  curl_multi_setopt(impl_->multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, long(impl_->options.max_parallel));
  impl_->thread = std::thread([impl = impl_.get()] { impl->run(); });
}

Sender::~Sender() {
  impl_->stop = true;
  curl_multi_wakeup(impl_->multi);
  impl_->thread.join();
  curl_multi_cleanup(impl_->multi);
}

void Sender::send(Delivery d) {
  {
    std::lock_guard lock(impl_->mu);
    if (impl_->stop) return;
    if (impl_->queue.size() + impl_->taken >= impl_->options.max_queue)
      impl_->turned_away.push_back(std::move(d.to.endpoint));
    else
      impl_->queue.emplace(Clock::now(), Impl::Job{std::move(d), 0, {}});
  }
  curl_multi_wakeup(impl_->multi);
}

bool Sender::wait_idle(int64_t timeout_ms) {
  std::unique_lock lock(impl_->mu);
  return impl_->idle.wait_for(lock, std::chrono::milliseconds(timeout_ms), [&] {
    return impl_->queue.empty() && impl_->taken == 0 && impl_->turned_away.empty() && impl_->reporting == 0;
  });
}

size_t Sender::pending() const {
  std::lock_guard lock(impl_->mu);
  return impl_->queue.size() + impl_->taken;
}

Sender::Figures Sender::figures() const {
  return {impl_->delivered.load(), impl_->gone.load(), impl_->failed.load(), impl_->retries.load()};
}

const KeyPair& Sender::vapid() const { return impl_->vapid; }

}  // namespace makruk::server::webpush
