// Web Push: base64url, keys, message encryption (RFC 8291), VAPID (RFC 8292)
// and delivery to a push service on loopback (RFC 8030).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/pem.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <boost/json.hpp>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <thread>

#include "push_receiver.h"
#include "server/push/webpush.h"

using namespace makruk::server::webpush;
using makruk::testing::PushReceiver;
using makruk::testing::PushReply;

namespace {

std::string unb64(std::string_view s) {
  auto v = b64url_decode(s);
  EXPECT_TRUE(v.has_value()) << s;
  return v.value_or("");
}

std::string random_bytes(size_t n, std::mt19937& rng) {
  std::string out(n, '\0');
  for (char& c : out) c = static_cast<char>(rng() & 0xff);
  return out;
}

int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// RFC 8291, Appendix A.
namespace rfc {
const char* plaintext = "When I grow up, I want to be a watermelon";
const char* as_private = "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw";
const char* as_public = "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8";
const char* ua_private = "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94";
const char* ua_public = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4";
const char* salt = "DGv6ra1nlYgDCS1FRnbzlw";
const char* auth = "BTBZMqHH6r4Tts7J_aSIgg";
const char* body =
    "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27ml"
    "mlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPT"
    "pK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN";
}  // namespace rfc

// ----------------------------------------------------------------- base64url

TEST(Base64Url, KnownValues) {
  EXPECT_EQ(b64url_encode(""), "");
  EXPECT_EQ(b64url_encode("f"), "Zg");
  EXPECT_EQ(b64url_encode("fo"), "Zm8");
  EXPECT_EQ(b64url_encode("foo"), "Zm9v");
  EXPECT_EQ(b64url_encode("foob"), "Zm9vYg");
  EXPECT_EQ(b64url_encode("fooba"), "Zm9vYmE");
  EXPECT_EQ(b64url_encode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(b64url_encode(std::string("\xfb\xff\xbf", 3)), "-_-_");  // the two URL-safe characters
  EXPECT_EQ(b64url_decode("-_-_"), std::string("\xfb\xff\xbf", 3));
  EXPECT_EQ(b64url_decode(""), "");
  EXPECT_EQ(b64url_decode("Zm9vYmE"), "fooba");
}

TEST(Base64Url, AcceptsPadding) {
  EXPECT_EQ(b64url_decode("Zg=="), "f");
  EXPECT_EQ(b64url_decode("Zm8="), "fo");
  EXPECT_EQ(b64url_decode("Zm9vYg=="), "foob");
}

TEST(Base64Url, RefusesBadText) {
  for (const char* bad : {"Zm9v+", "Zm9v/", "Zm 9v", "Zm9v\n", "Z", "Zm9vY", "=", "Zg=", "Zg===", "Z=g=",
                          "Zm8==", "Zg==Zg==", "\xc3\xa9", "Zh", "Zm9", "Zh=="})  // Zh, Zm9: unused bits set
    EXPECT_FALSE(b64url_decode(bad).has_value()) << bad;
  EXPECT_FALSE(b64url_decode(std::string_view("Zm\0v", 4)).has_value());
}

TEST(Base64Url, RoundTripsEveryLength) {
  std::mt19937 rng(1);
  for (size_t n = 0; n < 100; ++n) {
    const std::string raw = random_bytes(n, rng);
    const std::string text = b64url_encode(raw);
    EXPECT_EQ(text.find('='), std::string::npos);
    EXPECT_EQ(b64url_decode(text), raw) << n;
  }
}

// ------------------------------------------------------------------ origin_of

TEST(OriginOf, Cases) {
  EXPECT_EQ(origin_of("https://push.example.net/a/b"), "https://push.example.net");
  EXPECT_EQ(origin_of("https://fcm.googleapis.com/fcm/send/abc:def"), "https://fcm.googleapis.com");
  EXPECT_EQ(origin_of("http://127.0.0.1:8123/push"), "http://127.0.0.1:8123");
  EXPECT_EQ(origin_of("https://Push.Example.NET:8443"), "https://push.example.net:8443");
  EXPECT_EQ(origin_of("HTTPS://example.net?x=1"), "https://example.net");
  EXPECT_EQ(origin_of("https://example.net#frag"), "https://example.net");
  EXPECT_EQ(origin_of("https://example.net:443/x"), "https://example.net");  // default ports dropped
  EXPECT_EQ(origin_of("http://example.net:80/x"), "http://example.net");
  EXPECT_EQ(origin_of("http://example.net:443/x"), "http://example.net:443");
  EXPECT_EQ(origin_of("https://user:pw@example.net/x"), "https://example.net");
  EXPECT_EQ(origin_of("http://[::1]:8080/p"), "http://[::1]:8080");
  EXPECT_EQ(origin_of("http://[::1]/p"), "http://[::1]");
}

TEST(OriginOf, RefusesNonHttpUrls) {
  for (const char* bad : {"", "push.example.net/a", "//example.net/a", "ftp://example.net/a", "https://",
                          "https:///path", "https://:443/", "https://example.net:abc/", "https://example.net:99999/",
                          "https://exa mple.net/", "https://[::1/", "https://[zz]/", "mailto:x@example.net",
                          "https://example.net\r\nX: y/"})
    EXPECT_EQ(origin_of(bad), "") << bad;
}

// ------------------------------------------------------- is_public_address

// is_public_address for an address in text form (IPv4 or IPv6).
bool is_public(const std::string& text) {
  sockaddr_in in{};
  in.sin_family = AF_INET;
  in.sin_port = htons(443);
  if (::inet_pton(AF_INET, text.c_str(), &in.sin_addr) == 1)
    return is_public_address(reinterpret_cast<const sockaddr*>(&in), sizeof in);
  sockaddr_in6 in6{};
  in6.sin6_family = AF_INET6;
  in6.sin6_port = htons(443);
  EXPECT_EQ(::inet_pton(AF_INET6, text.c_str(), &in6.sin6_addr), 1) << text;
  return is_public_address(reinterpret_cast<const sockaddr*>(&in6), sizeof in6);
}

// Addresses as values only: nothing here is ever connected to.
const char* const kPrivateV4[] = {
    "0.0.0.0",        "0.1.2.3",         "0.255.255.255",                     // this network
    "10.0.0.0",       "10.1.2.3",        "10.255.255.255",                    // private
    "100.64.0.0",     "100.100.1.1",     "100.127.255.255",                   // shared (CGNAT)
    "127.0.0.0",      "127.0.0.1",       "127.1.2.3",       "127.255.255.255",  // loopback
    "169.254.0.0",    "169.254.169.254", "169.254.255.255",                   // link-local
    "172.16.0.0",     "172.20.1.1",      "172.31.255.255",                    // private
    "192.0.0.0",      "192.0.0.8",       "192.0.0.255",                       // IETF protocol assignments
    "192.0.2.0",      "192.0.2.1",       "192.0.2.255",                       // TEST-NET-1
    "192.168.0.0",    "192.168.1.1",     "192.168.255.255",                   // private
    "198.18.0.0",     "198.18.5.5",      "198.19.255.255",                    // benchmarking
    "198.51.100.0",   "198.51.100.7",    "198.51.100.255",                    // TEST-NET-2
    "203.0.113.0",    "203.0.113.9",     "203.0.113.255",                     // TEST-NET-3
    "224.0.0.0",      "224.0.0.251",     "239.255.255.255",                   // multicast
    "240.0.0.0",      "250.1.2.3",       "255.255.255.254", "255.255.255.255",  // reserved, broadcast
};
// Public ones, many just outside a refused block.
const char* const kPublicV4[] = {
    "1.0.0.0", "1.1.1.1", "8.8.8.8", "9.255.255.255", "11.0.0.0", "100.63.255.255", "100.128.0.0", "126.255.255.255",
    "128.0.0.0", "169.253.255.255", "169.255.0.0", "172.15.255.255", "172.32.0.0", "191.255.255.255", "192.0.1.0",
    "192.0.3.0", "192.167.255.255", "192.169.0.0", "198.17.255.255", "198.20.0.0", "198.51.99.255", "198.51.101.0",
    "203.0.112.255", "203.0.114.0", "223.255.255.255",
};

// `v4` carried in IPv6: mapped, NAT64 and 6to4 (2002:AABB:CCDD::1).
std::vector<std::string> embeddings(const std::string& v4) {
  unsigned char b[4];
  EXPECT_EQ(::inet_pton(AF_INET, v4.c_str(), b), 1) << v4;
  char six_to_four[64];
  std::snprintf(six_to_four, sizeof six_to_four, "2002:%02x%02x:%02x%02x::1", b[0], b[1], b[2], b[3]);
  return {"::ffff:" + v4, "64:ff9b::" + v4, six_to_four};
}

TEST(AddressCheck, RefusesEveryPrivateIpv4Block) {
  for (const char* a : kPrivateV4) EXPECT_FALSE(is_public(a)) << a;
}

TEST(AddressCheck, AcceptsPublicIpv4) {
  for (const char* a : kPublicV4) EXPECT_TRUE(is_public(a)) << a;
}

TEST(AddressCheck, RefusesPrivateIpv6Blocks) {
  for (const char* a : {
           // ::/96: unspecified, loopback, IPv4-compatible
           "::", "::1", "0:0:0:0:0:0:0:1", "::2", "::ffff", "::127.0.0.1", "::8.8.8.8",
           // 64:ff9b:1::/48, local-use NAT64
           "64:ff9b:1::", "64:ff9b:1::8.8.8.8", "64:ff9b:1:ffff:ffff:ffff:ffff:ffff",
           // 100::/64, discard only
           "100::", "100::1", "100::ffff:ffff:ffff:ffff",
           // 2001:db8::/32, documentation
           "2001:db8::", "2001:db8::1", "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff",
           // fc00::/7, unique local
           "fc00::", "fc00::1", "fd12:3456:789a::1", "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
           // fe80::/10, link-local; fec0::/10, site-local
           "fe80::", "fe80::1", "febf:ffff::1", "fec0::", "fec0::1", "feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
           // ff00::/8, multicast
           "ff00::", "ff02::1", "ff05::1:3", "ff0e::1", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
       })
    EXPECT_FALSE(is_public(a)) << a;
}

TEST(AddressCheck, Ipv4InsideIpv6FollowsTheIpv4Rules) {
  for (const char* a : kPrivateV4)
    for (const std::string& e : embeddings(a)) EXPECT_FALSE(is_public(e)) << e;
  for (const char* a : kPublicV4)
    for (const std::string& e : embeddings(a)) EXPECT_TRUE(is_public(e)) << e;
  // Other spellings of the same addresses.
  for (const char* a : {"::ffff:7f00:1", "0:0:0:0:0:ffff:127.0.0.1", "::FFFF:A00:1", "::ffff:c0a8:101",
                        "64:ff9b::7f00:1", "64:ff9b::a9fe:a9fe", "64:FF9B::0A00:0001", "2002:7f00:1::",
                        "2002:7f00:0001:ffff:ffff:ffff:ffff:ffff", "2002:a00:1::1", "2002:c0a8:101::",
                        "2002:a9fe:a9fe::1", "2002::", "2002:ffff:ffff::1"})
    EXPECT_FALSE(is_public(a)) << a;
  for (const char* a : {"::ffff:808:808", "64:ff9b::808:808", "2002:808:808::1", "2002:101:101:1::"})
    EXPECT_TRUE(is_public(a)) << a;
}

TEST(AddressCheck, AcceptsPublicIpv6) {
  for (const char* a : {"2606:4700::1111", "2606:4700:4700::1001", "2001:4860:4860::8888", "2a00:1450:4001::1",
                        "2001:db7:ffff:ffff:ffff:ffff:ffff:ffff", "2001:db9::", "2003::1", "2400:cb00::1"})
    EXPECT_TRUE(is_public(a)) << a;
}

TEST(AddressCheck, RefusesOtherFamiliesAndShortLengths) {
  EXPECT_FALSE(is_public_address(nullptr, 0));
  sockaddr_in in{};
  in.sin_family = AF_INET;
  ASSERT_EQ(::inet_pton(AF_INET, "8.8.8.8", &in.sin_addr), 1);
  EXPECT_TRUE(is_public_address(reinterpret_cast<const sockaddr*>(&in), sizeof in));
  EXPECT_FALSE(is_public_address(reinterpret_cast<const sockaddr*>(&in), sizeof in - 1));
  EXPECT_FALSE(is_public_address(reinterpret_cast<const sockaddr*>(&in), 0));
  sockaddr_in6 in6{};
  in6.sin6_family = AF_INET6;
  ASSERT_EQ(::inet_pton(AF_INET6, "2606:4700::1111", &in6.sin6_addr), 1);
  EXPECT_TRUE(is_public_address(reinterpret_cast<const sockaddr*>(&in6), sizeof in6));
  EXPECT_FALSE(is_public_address(reinterpret_cast<const sockaddr*>(&in6), sizeof in6 - 1));
  EXPECT_FALSE(is_public_address(reinterpret_cast<const sockaddr*>(&in6), sizeof(sockaddr_in)));
  sockaddr_un un{};
  un.sun_family = AF_UNIX;
  std::strcpy(un.sun_path, "/push");
  EXPECT_FALSE(is_public_address(reinterpret_cast<const sockaddr*>(&un), sizeof un));
  sockaddr_in odd = in;
  odd.sin_family = AF_UNSPEC;
  EXPECT_FALSE(is_public_address(reinterpret_cast<const sockaddr*>(&odd), sizeof odd));
}

// -------------------------------------------------------------------- KeyPair

TEST(KeyPair, GenerateAndRebuild) {
  const KeyPair k = KeyPair::generate();
  const std::string pub = k.public_raw(), priv = k.private_raw();
  ASSERT_EQ(pub.size(), 65u);
  EXPECT_EQ(pub[0], '\x04');
  ASSERT_EQ(priv.size(), 32u);
  auto again = KeyPair::from_private(priv);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->public_raw(), pub);
  EXPECT_NE(KeyPair::generate().public_raw(), pub);
}

TEST(KeyPair, FromPrivateGivesTheRfcPublicKeys) {
  auto as = KeyPair::from_private(unb64(rfc::as_private));
  auto ua = KeyPair::from_private(unb64(rfc::ua_private));
  ASSERT_TRUE(as && ua);
  EXPECT_EQ(b64url_encode(as->public_raw()), rfc::as_public);
  EXPECT_EQ(b64url_encode(ua->public_raw()), rfc::ua_public);
  EXPECT_EQ(b64url_encode(as->private_raw()), rfc::as_private);
}

TEST(KeyPair, FromPrivateRefusesInvalidScalars) {
  EXPECT_FALSE(KeyPair::from_private(""));
  EXPECT_FALSE(KeyPair::from_private(std::string(31, '\x01')));
  EXPECT_FALSE(KeyPair::from_private(std::string(33, '\x01')));
  EXPECT_FALSE(KeyPair::from_private(std::string(32, '\0')));
  EXPECT_FALSE(KeyPair::from_private(std::string(32, '\xff')));
  // The group order n itself is out of range; n - 1 is the largest key.
  const std::string n = unb64("_____wAAAAD__________7zm-q2nF56E87nKwvxjJVE");
  EXPECT_FALSE(KeyPair::from_private(n));
  std::string n1 = n;
  n1[31] = static_cast<char>(n1[31] - 1);
  EXPECT_TRUE(KeyPair::from_private(n1));
}

TEST(KeyPair, PemRoundTrip) {
  const KeyPair k = KeyPair::generate();
  const std::string pem = k.to_pem();
  EXPECT_NE(pem.find("-----BEGIN PRIVATE KEY-----"), std::string::npos);
  auto back = KeyPair::from_pem(pem);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->private_raw(), k.private_raw());
  EXPECT_EQ(back->public_raw(), k.public_raw());
}

TEST(KeyPair, FromPemRefusesOtherText) {
  EXPECT_FALSE(KeyPair::from_pem(""));
  EXPECT_FALSE(KeyPair::from_pem("hello"));
  EXPECT_FALSE(KeyPair::from_pem("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"));
  // A valid key on another curve.
  EVP_PKEY* p384 = EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-384");
  ASSERT_NE(p384, nullptr);
  BIO* bio = BIO_new(BIO_s_mem());
  ASSERT_EQ(PEM_write_bio_PrivateKey(bio, p384, nullptr, nullptr, 0, nullptr, nullptr), 1);
  char* data = nullptr;
  const long len = BIO_get_mem_data(bio, &data);
  const std::string pem(data, static_cast<size_t>(len));
  BIO_free(bio);
  EVP_PKEY_free(p384);
  EXPECT_FALSE(KeyPair::from_pem(pem));
}

class VapidFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("makruk-webpush-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

TEST_F(VapidFile, CreatedPrivateThenReused) {
  const std::string dir = (dir_ / "nested" / "data").string();
  const KeyPair first = load_or_create_vapid(dir);
  const auto file = std::filesystem::path(dir) / "vapid.pem";
  struct stat st{};
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  const KeyPair second = load_or_create_vapid(dir);
  EXPECT_EQ(second.private_raw(), first.private_raw());
  EXPECT_EQ(second.public_raw(), first.public_raw());
  // Nothing else is left in the folder (no temporary files).
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()), 1);
}

TEST_F(VapidFile, UnreadableFileThrows) {
  std::filesystem::create_directories(dir_);
  std::ofstream(dir_ / "vapid.pem") << "not a key\n";
  EXPECT_THROW(load_or_create_vapid(dir_.string()), std::runtime_error);
}

// ----------------------------------------------------------------- encryption

TEST(Rfc8291, AppendixAEncrypt) {
  auto as = KeyPair::from_private(unb64(rfc::as_private));
  ASSERT_TRUE(as);
  const std::string body =
      encrypt(rfc::plaintext, unb64(rfc::ua_public), unb64(rfc::auth), &*as, unb64(rfc::salt), 4096);
  EXPECT_EQ(b64url_encode(body), rfc::body);
}

TEST(Rfc8291, AppendixADecrypt) {
  auto ua = KeyPair::from_private(unb64(rfc::ua_private));
  ASSERT_TRUE(ua);
  std::string error;
  const auto plain = decrypt(unb64(rfc::body), *ua, unb64(rfc::auth), &error);
  ASSERT_TRUE(plain) << error;
  EXPECT_EQ(*plain, rfc::plaintext);
}

struct Browser {
  KeyPair key = KeyPair::generate();
  std::string auth;
  explicit Browser(std::mt19937& rng) : auth(random_bytes(16, rng)) {}
};

TEST(Encryption, RoundTripsWithFreshKeys) {
  std::mt19937 rng(2);
  for (size_t n : {size_t(0), size_t(1), size_t(41), size_t(3000), size_t(4079)}) {
    Browser b(rng);
    const std::string plain = random_bytes(n, rng);
    const std::string body = encrypt(plain, b.key.public_raw(), b.auth);
    EXPECT_EQ(body.size(), 86 + n + 1 + 16);
    EXPECT_EQ(body.substr(16, 5), std::string("\0\0\x10\0\x41", 5));  // rs 4096, idlen 65
    std::string error;
    const auto back = decrypt(body, b.key, b.auth, &error);
    ASSERT_TRUE(back) << n << ": " << error;
    EXPECT_EQ(*back, plain);
  }
}

TEST(Encryption, FreshSaltAndKeyEachTime) {
  std::mt19937 rng(3);
  Browser b(rng);
  const std::string one = encrypt("same", b.key.public_raw(), b.auth);
  const std::string two = encrypt("same", b.key.public_raw(), b.auth);
  EXPECT_NE(one.substr(0, 16), two.substr(0, 16));
  EXPECT_NE(one.substr(21, 65), two.substr(21, 65));
}

TEST(Encryption, RefusesBadArguments) {
  std::mt19937 rng(4);
  Browser b(rng);
  const std::string pub = b.key.public_raw();
  EXPECT_THROW(encrypt("x", pub.substr(0, 64), b.auth), std::invalid_argument);
  EXPECT_THROW(encrypt("x", "", b.auth), std::invalid_argument);
  std::string off_curve = pub;
  off_curve[64] = static_cast<char>(off_curve[64] ^ 1);
  EXPECT_THROW(encrypt("x", off_curve, b.auth), std::invalid_argument);
  std::string compressed = pub;
  compressed[0] = '\x02';
  EXPECT_THROW(encrypt("x", compressed, b.auth), std::invalid_argument);
  EXPECT_THROW(encrypt("x", pub, b.auth.substr(0, 15)), std::invalid_argument);
  EXPECT_THROW(encrypt("x", pub, b.auth, nullptr, "short"), std::invalid_argument);
  EXPECT_THROW(encrypt(std::string(4080, 'a'), pub, b.auth), std::invalid_argument);
  EXPECT_THROW(encrypt("", pub, b.auth, nullptr, {}, 17), std::invalid_argument);
  EXPECT_NO_THROW(encrypt("a", pub, b.auth, nullptr, {}, 18));
}

TEST(Encryption, DecryptRefusesEveryFlippedByte) {
  std::mt19937 rng(5);
  Browser b(rng);
  const std::string body = encrypt("the move is e3e4", b.key.public_raw(), b.auth);
  for (size_t i = 0; i < body.size(); ++i) {
    std::string bad = body;
    bad[i] = static_cast<char>(bad[i] ^ 0x01);
    std::string error;
    const auto plain = decrypt(bad, b.key, b.auth, &error);
    // A flipped bit in rs may still leave a valid record size: then the
    // result must still be the true plaintext, never anything else.
    if (i >= 16 && i < 20 && plain) {
      EXPECT_EQ(*plain, "the move is e3e4");
      continue;
    }
    EXPECT_FALSE(plain) << "byte " << i;
    EXPECT_FALSE(error.empty()) << "byte " << i;
  }
}

TEST(Encryption, DecryptRefusesWrongSecretsAndKeys) {
  std::mt19937 rng(6);
  Browser b(rng), other(rng);
  const std::string body = encrypt("hello", b.key.public_raw(), b.auth);
  std::string error;
  EXPECT_FALSE(decrypt(body, b.key, other.auth, &error));
  EXPECT_FALSE(error.empty());
  EXPECT_FALSE(decrypt(body, other.key, b.auth, &error));
  EXPECT_FALSE(decrypt(body, b.key, b.auth.substr(1), &error));
  EXPECT_FALSE(decrypt(body, KeyPair{}, b.auth, &error));
  EXPECT_FALSE(decrypt(body, b.key, other.auth, nullptr));  // no error text wanted
  EXPECT_TRUE(decrypt(body, b.key, b.auth, &error));
}

TEST(Encryption, DecryptRefusesTruncatedAndExtendedBodies) {
  std::mt19937 rng(7);
  Browser b(rng);
  const std::string body = encrypt("hello", b.key.public_raw(), b.auth);
  for (size_t n = 0; n < body.size(); ++n) {
    std::string error;
    EXPECT_FALSE(decrypt(body.substr(0, n), b.key, b.auth, &error)) << n;
    EXPECT_FALSE(error.empty()) << n;
  }
  EXPECT_FALSE(decrypt(body + '\0', b.key, b.auth, nullptr));
  // A record longer than rs would be a second record.
  const std::string small = encrypt("0123456789", b.key.public_raw(), b.auth, nullptr, {}, 27);
  ASSERT_TRUE(decrypt(small, b.key, b.auth, nullptr));
  EXPECT_FALSE(decrypt(small + "x", b.key, b.auth, nullptr));
}

TEST(Encryption, DecryptRefusesBadHeaders) {
  std::mt19937 rng(8);
  Browser b(rng);
  const std::string body = encrypt("hello", b.key.public_raw(), b.auth);
  std::string bad = body;
  bad[20] = 64;  // idlen
  EXPECT_FALSE(decrypt(bad, b.key, b.auth, nullptr));
  bad = body;
  bad.replace(16, 4, std::string("\0\0\0\x11", 4));  // rs 17
  EXPECT_FALSE(decrypt(bad, b.key, b.auth, nullptr));
  bad = body;
  bad[21] = '\x03';  // keyid not an uncompressed point
  EXPECT_FALSE(decrypt(bad, b.key, b.auth, nullptr));
}

// Seals any record (padding and delimiter included) as RFC 8291 would, to
// show what decrypt makes of records that encrypt never writes.
std::string seal(const std::string& record, const KeyPair& ua, const std::string& auth) {
  const KeyPair as = KeyPair::generate();
  const std::string salt(16, '\x07'), ua_pub = ua.public_raw(), as_pub = as.public_raw();
  EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_from_pkey(nullptr, static_cast<EVP_PKEY*>(as.evp()), nullptr);
  EVP_PKEY_derive_init(ctx);
  EVP_PKEY_derive_set_peer(ctx, static_cast<EVP_PKEY*>(ua.evp()));
  std::string shared(32, '\0');
  size_t len = shared.size();
  EXPECT_EQ(EVP_PKEY_derive(ctx, reinterpret_cast<unsigned char*>(shared.data()), &len), 1);
  EVP_PKEY_CTX_free(ctx);
  auto hkdf = [](const std::string& salt, const std::string& ikm, const std::string& info, size_t n) {
    EVP_KDF* kdf = EVP_KDF_fetch(nullptr, "HKDF", nullptr);
    EVP_KDF_CTX* k = EVP_KDF_CTX_new(kdf);
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_utf8_string("digest", const_cast<char*>("SHA256"), 0),
        OSSL_PARAM_construct_octet_string("key", const_cast<char*>(ikm.data()), ikm.size()),
        OSSL_PARAM_construct_octet_string("salt", const_cast<char*>(salt.data()), salt.size()),
        OSSL_PARAM_construct_octet_string("info", const_cast<char*>(info.data()), info.size()),
        OSSL_PARAM_construct_end()};
    std::string out(n, '\0');
    EXPECT_EQ(EVP_KDF_derive(k, reinterpret_cast<unsigned char*>(out.data()), n, params), 1);
    EVP_KDF_CTX_free(k);
    EVP_KDF_free(kdf);
    return out;
  };
  const std::string ikm = hkdf(auth, shared, std::string("WebPush: info\0", 14) + ua_pub + as_pub, 32);
  const std::string cek = hkdf(salt, ikm, std::string("Content-Encoding: aes128gcm\0", 28), 16);
  const std::string nonce = hkdf(salt, ikm, std::string("Content-Encoding: nonce\0", 24), 12);
  EVP_CIPHER_CTX* c = EVP_CIPHER_CTX_new();
  std::string out(record.size() + 16, '\0');
  auto* o = reinterpret_cast<unsigned char*>(out.data());
  int n = 0, fin = 0;
  EVP_EncryptInit_ex(c, EVP_aes_128_gcm(), nullptr, reinterpret_cast<const unsigned char*>(cek.data()),
                     reinterpret_cast<const unsigned char*>(nonce.data()));
  EVP_EncryptUpdate(c, o, &n, reinterpret_cast<const unsigned char*>(record.data()), int(record.size()));
  EVP_EncryptFinal_ex(c, o + n, &fin);
  EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_GET_TAG, 16, o + record.size());
  EVP_CIPHER_CTX_free(c);
  return salt + std::string("\0\0\x10\0\x41", 5) + as_pub + out;
}

TEST(Encryption, PaddingAndDelimiter) {
  std::mt19937 rng(26);
  Browser b(rng);
  auto unseal = [&](const std::string& record) { return decrypt(seal(record, b.key, b.auth), b.key, b.auth, nullptr); };
  EXPECT_EQ(unseal(std::string("abc\x02", 4)), "abc");
  EXPECT_EQ(unseal(std::string("abc\x02\0\0\0", 7)), "abc");  // padding after the delimiter
  EXPECT_EQ(unseal(std::string("\x02", 1)), "");
  EXPECT_EQ(unseal(std::string("a\0b\0\x02\0", 6)), std::string("a\0b\0", 4));
  EXPECT_FALSE(unseal(std::string("abc\x01", 4)));  // not the last record
  EXPECT_FALSE(unseal(std::string("abc\x03\0", 5)));
  EXPECT_FALSE(unseal(std::string("abc", 3)));
  EXPECT_FALSE(unseal(std::string("\0\0\0", 3)));  // no delimiter at all
  std::string error;
  EXPECT_FALSE(decrypt(seal(std::string(1, '\0'), b.key, b.auth), b.key, b.auth, &error));
  EXPECT_NE(error.find("delimiter"), std::string::npos) << error;
  // encrypt keeps trailing zero bytes of the plaintext.
  const std::string zeros("x\0\0", 3);
  EXPECT_EQ(decrypt(encrypt(zeros, b.key.public_raw(), b.auth), b.key, b.auth, nullptr), zeros);
}

TEST(Encryption, DecryptSurvivesGarbage) {
  std::mt19937 rng(9);
  Browser b(rng);
  for (int i = 0; i < 300; ++i) {
    std::string junk = random_bytes(rng() % 300, rng);
    if (junk.size() > 21 && i % 2) {
      junk[20] = 65;  // get past the header checks
      junk.replace(21, std::min<size_t>(65, junk.size() - 21), b.key.public_raw().substr(0, junk.size() - 21));
    }
    std::string error;
    EXPECT_FALSE(decrypt(junk, b.key, b.auth, &error));
    EXPECT_FALSE(error.empty());
  }
}

// ---------------------------------------------------------------------- VAPID

// A signed JWT with any header and claims, to test what verify_vapid refuses.
std::string sign_jwt(const KeyPair& key, const std::string& header, const std::string& claims) {
  const std::string input = b64url_encode(header) + "." + b64url_encode(claims);
  EVP_MD_CTX* md = EVP_MD_CTX_new();
  size_t len = 0;
  EXPECT_EQ(EVP_DigestSignInit_ex(md, nullptr, "SHA256", nullptr, nullptr, static_cast<EVP_PKEY*>(key.evp()),
                                  nullptr),
            1);
  EXPECT_EQ(EVP_DigestSign(md, nullptr, &len, reinterpret_cast<const unsigned char*>(input.data()), input.size()), 1);
  std::vector<unsigned char> der(len);
  EXPECT_EQ(EVP_DigestSign(md, der.data(), &len, reinterpret_cast<const unsigned char*>(input.data()), input.size()),
            1);
  EVP_MD_CTX_free(md);
  const unsigned char* p = der.data();
  ECDSA_SIG* sig = d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(len));
  const BIGNUM *r = nullptr, *s = nullptr;
  ECDSA_SIG_get0(sig, &r, &s);
  std::string raw(64, '\0');
  BN_bn2binpad(r, reinterpret_cast<unsigned char*>(raw.data()), 32);
  BN_bn2binpad(s, reinterpret_cast<unsigned char*>(raw.data()) + 32, 32);
  ECDSA_SIG_free(sig);
  return "vapid t=" + input + "." + b64url_encode(raw) + ", k=" + b64url_encode(key.public_raw());
}

const char* kAud = "https://push.example.net";
const char* kHead = R"({"typ":"JWT","alg":"ES256"})";

TEST(Vapid, GeneratedHeaderVerifies) {
  const KeyPair k = KeyPair::generate();
  const int64_t now = unix_now();
  const std::string h = vapid_authorization(k, kAud, "mailto:admin@example.net", now + 12 * 3600);
  EXPECT_EQ(h.rfind("vapid t=", 0), 0u);
  EXPECT_NE(h.find(", k=" + b64url_encode(k.public_raw())), std::string::npos);
  std::string error;
  EXPECT_TRUE(verify_vapid(h, kAud, now, &error)) << error;
  // The claims are what was asked for.
  const std::string jwt = h.substr(8, h.find(',') - 8);
  const size_t d1 = jwt.find('.'), d2 = jwt.rfind('.');
  const auto head = boost::json::parse(unb64(jwt.substr(0, d1))).as_object();
  EXPECT_EQ(head.at("alg").as_string(), "ES256");
  EXPECT_EQ(head.at("typ").as_string(), "JWT");
  const auto claims = boost::json::parse(unb64(jwt.substr(d1 + 1, d2 - d1 - 1))).as_object();
  EXPECT_EQ(claims.at("aud").as_string(), kAud);
  EXPECT_EQ(claims.at("sub").as_string(), "mailto:admin@example.net");
  EXPECT_EQ(claims.at("exp").as_int64(), now + 12 * 3600);
  EXPECT_EQ(unb64(jwt.substr(d2 + 1)).size(), 64u);
}

TEST(Vapid, ToleratesSpacingAndCase) {
  const KeyPair k = KeyPair::generate();
  const int64_t now = unix_now();
  const std::string h = vapid_authorization(k, kAud, "mailto:a@b", now + 60);
  const size_t comma = h.find(',');
  const std::string t = h.substr(8, comma - 8), key = h.substr(comma + 4);
  for (const std::string& v : {"  vapid   t=" + t + "  ,   k=" + key + "  ", "VAPID t = " + t + " , k = " + key,
                               "vapid k=" + key + ", t=" + t, "vapid\tt=" + t + ",k=" + key})
    EXPECT_TRUE(verify_vapid(v, kAud, now, nullptr)) << v;
}

TEST(Vapid, RefusesAnotherKey) {
  const KeyPair k = KeyPair::generate(), other = KeyPair::generate();
  const int64_t now = unix_now();
  std::string h = vapid_authorization(k, kAud, "mailto:a@b", now + 60);
  h = h.substr(0, h.find(", k=")) + ", k=" + b64url_encode(other.public_raw());
  std::string error;
  EXPECT_FALSE(verify_vapid(h, kAud, now, &error));
  EXPECT_FALSE(error.empty());
}

TEST(Vapid, RefusesTamperedClaims) {
  const KeyPair k = KeyPair::generate();
  const int64_t now = unix_now();
  const std::string h = vapid_authorization(k, kAud, "mailto:a@b", now + 60);
  const size_t d1 = h.find('.'), d2 = h.find('.', d1 + 1);
  auto claims = boost::json::parse(unb64(h.substr(d1 + 1, d2 - d1 - 1))).as_object();
  claims["sub"] = "mailto:mallory@example.net";
  const std::string forged = h.substr(0, d1 + 1) + b64url_encode(boost::json::serialize(claims)) + h.substr(d2);
  EXPECT_FALSE(verify_vapid(forged, kAud, now, nullptr));
  // A flipped signature byte, too.
  std::string sig_flipped = h;
  const size_t s = h.rfind('.') + 5;
  sig_flipped[s] = sig_flipped[s] == 'A' ? 'B' : 'A';
  EXPECT_FALSE(verify_vapid(sig_flipped, kAud, now, nullptr));
}

TEST(Vapid, RefusesWrongAudience) {
  const KeyPair k = KeyPair::generate();
  const int64_t now = unix_now();
  const std::string h = vapid_authorization(k, kAud, "mailto:a@b", now + 60);
  std::string error;
  EXPECT_FALSE(verify_vapid(h, "https://push.example.org", now, &error));
  EXPECT_FALSE(verify_vapid(h, "https://push.example.net/", now, &error));
  EXPECT_FALSE(verify_vapid(h, "", now, &error));
  EXPECT_NE(error.find("aud"), std::string::npos) << error;
}

TEST(Vapid, ExpiryWindow) {
  const KeyPair k = KeyPair::generate();
  const int64_t now = 1'700'000'000;
  auto ok = [&](int64_t exp) {
    return verify_vapid(vapid_authorization(k, kAud, "mailto:a@b", exp), kAud, now, nullptr);
  };
  EXPECT_FALSE(ok(now - 3600));
  EXPECT_FALSE(ok(now));
  EXPECT_TRUE(ok(now + 1));
  EXPECT_TRUE(ok(now + 24 * 3600));
  EXPECT_FALSE(ok(now + 24 * 3600 + 1));
  EXPECT_FALSE(ok(now + 30 * 24 * 3600));
}

TEST(Vapid, RefusesBadTokens) {
  const KeyPair k = KeyPair::generate();
  const int64_t now = unix_now();
  const std::string exp = std::to_string(now + 60);
  const std::string good = R"({"aud":"https://push.example.net","exp":)" + exp + R"(,"sub":"mailto:a@b"})";
  ASSERT_TRUE(verify_vapid(sign_jwt(k, kHead, good), kAud, now, nullptr));
  EXPECT_FALSE(verify_vapid(sign_jwt(k, kHead, R"({"aud":"https://push.example.net","exp":)" + exp + "}"), kAud,
                            now, nullptr));  // no sub
  EXPECT_FALSE(verify_vapid(
      sign_jwt(k, kHead, R"({"aud":"https://push.example.net","exp":)" + exp + R"(,"sub":""})"), kAud, now, nullptr));
  EXPECT_FALSE(verify_vapid(sign_jwt(k, kHead, R"({"aud":"https://push.example.net","sub":"mailto:a@b"})"), kAud,
                            now, nullptr));  // no exp
  EXPECT_FALSE(verify_vapid(
      sign_jwt(k, kHead, R"({"aud":"https://push.example.net","exp":")" + exp + R"(","sub":"mailto:a@b"})"), kAud,
      now, nullptr));  // exp a string
  EXPECT_FALSE(verify_vapid(sign_jwt(k, kHead, R"({"exp":)" + exp + R"(,"sub":"mailto:a@b"})"), kAud, now,
                            nullptr));  // no aud
  EXPECT_FALSE(verify_vapid(sign_jwt(k, R"({"typ":"JWT","alg":"HS256"})", good), kAud, now, nullptr));
  EXPECT_FALSE(verify_vapid(sign_jwt(k, R"({"typ":"JWT"})", good), kAud, now, nullptr));
  EXPECT_FALSE(verify_vapid(sign_jwt(k, R"({"typ":"XYZ","alg":"ES256"})", good), kAud, now, nullptr));
  EXPECT_FALSE(verify_vapid(sign_jwt(k, "not json", good), kAud, now, nullptr));
  EXPECT_FALSE(verify_vapid(sign_jwt(k, kHead, "[1,2]"), kAud, now, nullptr));
  EXPECT_FALSE(verify_vapid(sign_jwt(k, kHead, "{"), kAud, now, nullptr));
}

TEST(Vapid, RefusesGarbageHeaders) {
  const KeyPair k = KeyPair::generate();
  const int64_t now = unix_now();
  const std::string h = vapid_authorization(k, kAud, "mailto:a@b", now + 60);
  const size_t comma = h.find(',');
  const std::string t = h.substr(8, comma - 8), key = h.substr(comma + 4);
  for (const std::string& bad : std::vector<std::string>{
           std::string(), std::string("vapid"), std::string("vapid "), std::string("Bearer ") + t,
        "WebPush t=" + t + ", k=" + key, "vapid t=" + t, "vapid k=" + key, "vapid t=, k=", "vapid t=a.b.c, k=zzz",
        "vapid t=" + t + ", k=" + key + ", t=" + t, "vapid t=" + t + ", k=" + key.substr(1),
        "vapid t=" + t + ".x, k=" + key, "vapid t=" + t.substr(0, t.rfind('.')) + ", k=" + key,
        "vapid t=" + t + "=, k=" + key, "vapid t" + t + ", k=" + key, std::string(1000, ',')})
    EXPECT_FALSE(verify_vapid(bad, kAud, now, nullptr)) << bad;
  // Any damage to the token or the key is refused (base64url has one
  // spelling per value), without crashing.
  std::mt19937 rng(10);
  for (int i = 0; i < 500; ++i) {
    std::string bad = h;
    size_t at = 8 + rng() % (t.size() + key.size());
    if (at >= comma) at += 4;  // skip ", k="
    bad[at] = static_cast<char>(rng() & 0xff);
    if (bad == h) continue;
    EXPECT_FALSE(verify_vapid(bad, kAud, now, nullptr)) << bad;
  }
}

// --------------------------------------------------------------------- Sender

// What the sender reported, from its thread.
struct Log {
  std::mutex mu;
  std::vector<std::string> gone;
  struct Done {
    std::string endpoint;
    int status, attempts;
  };
  std::vector<Done> done;

  Sender::Gone on_gone() {
    return [this](const std::string& e) {
      std::lock_guard lock(mu);
      gone.push_back(e);
    };
  }
  Sender::Done on_done() {
    return [this](const std::string& e, int s, int a) {
      std::lock_guard lock(mu);
      done.push_back({e, s, a});
    };
  }
  std::vector<Done> dones() {
    std::lock_guard lock(mu);
    return done;
  }
  std::vector<std::string> gones() {
    std::lock_guard lock(mu);
    return gone;
  }
};

SenderOptions fast_options() {
  SenderOptions o;
  o.subject = "mailto:test@example.net";
  o.max_attempts = 3;
  o.first_retry_ms = 50;
  o.backoff = 2.0;
  o.timeout_ms = 10000;
  o.allow_private = true;  // the push service here is a plain-http one on loopback
  return o;
}

Subscription subscribe(const std::string& endpoint, const Browser& b) {
  return {endpoint, b64url_encode(b.key.public_raw()), b64url_encode(b.auth)};
}

Delivery message(Subscription to, std::string payload) {
  Delivery d;
  d.to = std::move(to);
  d.payload = std::move(payload);
  return d;
}

constexpr int64_t kWait = 30000;  // generous: the machine is shared

// A port nobody listens on: bound, then closed.
int closed_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  EXPECT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len), 0);
  ::close(fd);
  return ntohs(a.sin_port);
}

// A TCP listener on loopback that accepts every connection, counts it and
// never answers: a push service that hangs, and a witness that nobody
// connected. On 127.0.0.1, or on ::1 (IPv6 only) when `family` is AF_INET6;
// `port` 0 for an ephemeral one. ok() is false when it cannot listen there.
class Tarpit {
 public:
  explicit Tarpit(int family = AF_INET, int port = 0) {
    fd_ = ::socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd_ < 0) return;
    int one = 1;
    ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_storage ss{};
    socklen_t len;
    if (family == AF_INET6) {
      ::setsockopt(fd_, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
      auto* a = reinterpret_cast<sockaddr_in6*>(&ss);
      a->sin6_family = AF_INET6;
      a->sin6_addr = in6addr_loopback;
      a->sin6_port = htons(static_cast<uint16_t>(port));
      len = sizeof *a;
    } else {
      auto* a = reinterpret_cast<sockaddr_in*>(&ss);
      a->sin_family = AF_INET;
      a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      a->sin_port = htons(static_cast<uint16_t>(port));
      len = sizeof *a;
    }
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&ss), len) != 0 || ::listen(fd_, 64) != 0 ||
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&ss), &len) != 0) {
      ::close(fd_);
      fd_ = -1;
      return;
    }
    port_ = ntohs(family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port
                                     : reinterpret_cast<sockaddr_in*>(&ss)->sin_port);
    thread_ = std::thread([this] { accept_loop(); });
  }
  ~Tarpit() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    for (int c : held_) ::close(c);
    if (fd_ >= 0) ::close(fd_);
  }
  Tarpit(const Tarpit&) = delete;
  Tarpit& operator=(const Tarpit&) = delete;

  bool ok() const { return fd_ >= 0; }
  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/push"; }
  size_t accepted() {
    std::lock_guard lock(mu_);
    return held_.size();
  }
  bool wait_accepted(size_t n, std::chrono::milliseconds timeout) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, timeout, [&] { return held_.size() >= n; });
  }

 private:
  void accept_loop() {
    while (!stop_) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0) continue;  // a short tick, to notice the destructor
      const int c = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (c < 0) continue;
      {
        std::lock_guard lock(mu_);
        held_.push_back(c);
      }
      cv_.notify_all();
    }
  }

  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<int> held_;  // accepted connections, kept open and never answered
};

// Waits until `done` holds, looking every few milliseconds; false on timeout.
template <class Pred>
bool eventually(Pred done, int64_t timeout_ms = kWait) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (!done()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

TEST(Sender, DeliversAnEncryptedSignedMessage) {
  PushReceiver rx;
  Log log;
  std::mt19937 rng(11);
  Browser b(rng);
  Sender sender(KeyPair::generate(), fast_options(), log.on_gone(), log.on_done());
  const std::string endpoint = rx.url("/push/sub-1");
  Delivery d{subscribe(endpoint, b), R"({"title":"Your move","party":"ABCDEF"})", 600, "party-ABCDEF", "high"};
  sender.send(d);
  ASSERT_TRUE(sender.wait_idle(kWait));
  ASSERT_EQ(rx.count(), 1u);
  const auto req = rx.requests()[0];
  EXPECT_EQ(req.method, "POST");
  EXPECT_EQ(req.path, "/push/sub-1");
  EXPECT_EQ(req.header("ttl"), "600");
  EXPECT_EQ(req.header("content-encoding"), "aes128gcm");
  EXPECT_EQ(req.header("content-type"), "application/octet-stream");
  EXPECT_EQ(req.header("topic"), "party-ABCDEF");
  EXPECT_EQ(req.header("urgency"), "high");
  std::string error;
  EXPECT_TRUE(verify_vapid(req.header("authorization"), rx.origin(), unix_now(), &error)) << error;
  EXPECT_NE(req.header("authorization").find("k=" + b64url_encode(sender.vapid().public_raw())), std::string::npos);
  const auto plain = decrypt(req.body, b.key, b.auth, &error);
  ASSERT_TRUE(plain) << error;
  EXPECT_EQ(*plain, d.payload);
  const auto dones = log.dones();
  ASSERT_EQ(dones.size(), 1u);
  EXPECT_EQ(dones[0].endpoint, endpoint);
  EXPECT_EQ(dones[0].status, 201);
  EXPECT_EQ(dones[0].attempts, 1);
  EXPECT_TRUE(log.gones().empty());
}

TEST(Sender, OmitsInvalidTopicAndUrgency) {
  PushReceiver rx;
  std::mt19937 rng(12);
  Browser b(rng);
  Sender sender(KeyPair::generate(), fast_options(), {});
  sender.send({subscribe(rx.url("/a"), b), "{}", 60, "not a valid topic!", "urgent"});
  sender.send({subscribe(rx.url("/b"), b), "{}", 60, "", "low"});
  ASSERT_TRUE(sender.wait_idle(kWait));
  auto reqs = rx.requests();
  ASSERT_EQ(reqs.size(), 2u);
  // Sent in parallel: they may arrive in either order.
  std::sort(reqs.begin(), reqs.end(), [](const auto& x, const auto& y) { return x.path < y.path; });
  EXPECT_EQ(reqs[0].headers.count("topic"), 0u);
  EXPECT_EQ(reqs[0].header("urgency"), "normal");
  EXPECT_EQ(reqs[1].headers.count("topic"), 0u);
  EXPECT_EQ(reqs[1].header("urgency"), "low");
}

TEST(Sender, GoneSubscriptionIsReportedNotRetried) {
  for (int status : {410, 404}) {
    PushReceiver rx;
    rx.enqueue({status});
    Log log;
    std::mt19937 rng(13);
    Browser b(rng);
    Sender sender(KeyPair::generate(), fast_options(), log.on_gone(), log.on_done());
    const std::string endpoint = rx.url("/push/old");
    sender.send(message(subscribe(endpoint, b), "{}"));
    ASSERT_TRUE(sender.wait_idle(kWait));
    EXPECT_EQ(rx.count(), 1u);
    EXPECT_EQ(log.gones(), std::vector<std::string>{endpoint});
    const auto dones = log.dones();
    ASSERT_EQ(dones.size(), 1u);
    EXPECT_EQ(dones[0].status, status);
    EXPECT_EQ(dones[0].attempts, 1);
    const Sender::Figures f = sender.figures();  // what /metrics shows
    EXPECT_EQ(f.gone, 1u);
    EXPECT_EQ(f.delivered + f.failed + f.retries, 0u);
  }
}

TEST(Sender, RetriesAServerError) {
  PushReceiver rx;
  rx.enqueue({500, 201});
  Log log;
  std::mt19937 rng(14);
  Browser b(rng);
  Sender sender(KeyPair::generate(), fast_options(), log.on_gone(), log.on_done());
  sender.send(message(subscribe(rx.url(), b), "retry me"));
  ASSERT_TRUE(sender.wait_idle(kWait));
  const auto reqs = rx.requests();
  ASSERT_EQ(reqs.size(), 2u);
  // Each attempt carries a decryptable body and a valid signature.
  for (const auto& r : reqs) {
    EXPECT_EQ(decrypt(r.body, b.key, b.auth, nullptr), "retry me");
    EXPECT_TRUE(verify_vapid(r.header("authorization"), rx.origin(), unix_now(), nullptr));
  }
  const auto dones = log.dones();
  ASSERT_EQ(dones.size(), 1u);
  EXPECT_EQ(dones[0].status, 201);
  EXPECT_EQ(dones[0].attempts, 2);
  EXPECT_TRUE(log.gones().empty());
  const Sender::Figures f = sender.figures();
  EXPECT_EQ(f.delivered, 1u);
  EXPECT_EQ(f.retries, 1u);
  EXPECT_EQ(f.failed + f.gone, 0u);
}

TEST(Sender, HonoursRetryAfter) {
  PushReceiver rx;
  rx.enqueue(PushReply{429, 1});
  Log log;
  std::mt19937 rng(15);
  Browser b(rng);
  Sender sender(KeyPair::generate(), fast_options(), log.on_gone(), log.on_done());
  const auto start = std::chrono::steady_clock::now();
  sender.send(message(subscribe(rx.url(), b), "{}"));
  ASSERT_TRUE(sender.wait_idle(kWait));
  // A lower bound only: the retry waited at least the second asked for.
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(900));
  EXPECT_EQ(rx.count(), 2u);
  const auto dones = log.dones();
  ASSERT_EQ(dones.size(), 1u);
  EXPECT_EQ(dones[0].status, 201);
  EXPECT_EQ(dones[0].attempts, 2);
}

TEST(Sender, AnySuccessStatusIsDone) {
  PushReceiver rx;
  rx.enqueue({200, 202});
  Log log;
  std::mt19937 rng(27);
  Browser b(rng);
  Sender sender(KeyPair::generate(), fast_options(), log.on_gone(), log.on_done());
  sender.send(message(subscribe(rx.url("/a"), b), "{}"));
  ASSERT_TRUE(sender.wait_idle(kWait));
  sender.send(message(subscribe(rx.url("/b"), b), "{}"));
  ASSERT_TRUE(sender.wait_idle(kWait));
  const auto dones = log.dones();
  ASSERT_EQ(dones.size(), 2u);
  EXPECT_EQ(dones[0].status, 200);
  EXPECT_EQ(dones[1].status, 202);
  EXPECT_EQ(rx.count(), 2u);
}

TEST(Sender, GivesUpOnOtherClientErrors) {
  PushReceiver rx;
  rx.enqueue({400});
  Log log;
  std::mt19937 rng(16);
  Browser b(rng);
  Sender sender(KeyPair::generate(), fast_options(), log.on_gone(), log.on_done());
  sender.send(message(subscribe(rx.url(), b), "{}"));
  ASSERT_TRUE(sender.wait_idle(kWait));
  EXPECT_EQ(rx.count(), 1u);
  const auto dones = log.dones();
  ASSERT_EQ(dones.size(), 1u);
  EXPECT_EQ(dones[0].status, 400);
  EXPECT_EQ(dones[0].attempts, 1);
  EXPECT_TRUE(log.gones().empty());
}

TEST(Sender, StopsAfterMaxAttempts) {
  PushReceiver rx;
  rx.set_default(PushReply{503});
  Log log;
  std::mt19937 rng(17);
  Browser b(rng);
  Sender sender(KeyPair::generate(), fast_options(), log.on_gone(), log.on_done());
  sender.send(message(subscribe(rx.url(), b), "{}"));
  ASSERT_TRUE(sender.wait_idle(kWait));
  EXPECT_EQ(rx.count(), 3u);
  const auto dones = log.dones();
  ASSERT_EQ(dones.size(), 1u);
  EXPECT_EQ(dones[0].status, 503);
  EXPECT_EQ(dones[0].attempts, 3);
  const Sender::Figures f = sender.figures();
  EXPECT_EQ(f.failed, 1u);
  EXPECT_EQ(f.retries, 2u);
  EXPECT_EQ(f.delivered + f.gone, 0u);
}

TEST(Sender, RetriesConnectionRefused) {
  Log log;
  std::mt19937 rng(18);
  Browser b(rng);
  Sender sender(KeyPair::generate(), fast_options(), log.on_gone(), log.on_done());
  const std::string endpoint = "http://127.0.0.1:" + std::to_string(closed_port()) + "/push";
  sender.send(message(subscribe(endpoint, b), "{}"));
  ASSERT_TRUE(sender.wait_idle(kWait));
  const auto dones = log.dones();
  ASSERT_EQ(dones.size(), 1u);
  EXPECT_EQ(dones[0].endpoint, endpoint);
  EXPECT_EQ(dones[0].status, 0);
  EXPECT_EQ(dones[0].attempts, 3);
  EXPECT_TRUE(log.gones().empty());
}

TEST(Sender, TimesOut) {
  PushReceiver rx;
  rx.enqueue(PushReply{201, -1, 60000});
  Log log;
  std::mt19937 rng(19);
  Browser b(rng);
  SenderOptions o = fast_options();
  o.timeout_ms = 300;
  o.max_attempts = 1;
  Sender sender(KeyPair::generate(), o, log.on_gone(), log.on_done());
  sender.send(message(subscribe(rx.url(), b), "{}"));
  ASSERT_TRUE(sender.wait_idle(kWait));
  const auto dones = log.dones();
  ASSERT_EQ(dones.size(), 1u);
  EXPECT_EQ(dones[0].status, 0);
  EXPECT_EQ(dones[0].attempts, 1);
}

TEST(Sender, BadSubscriptionsAreDroppedAtOnce) {
  PushReceiver rx;
  Log log;
  std::mt19937 rng(20);
  Browser b(rng);
  Sender sender(KeyPair::generate(), fast_options(), log.on_gone(), log.on_done());
  const Subscription good = subscribe(rx.url(), b);
  sender.send(message({good.endpoint, "!!not base64!!", good.auth}, "{}"));
  sender.send(message({good.endpoint, good.p256dh, "###"}, "{}"));
  sender.send(message({good.endpoint, b64url_encode("short key"), good.auth}, "{}"));
  sender.send(message({good.endpoint, good.p256dh, b64url_encode("short")}, "{}"));
  sender.send(message({"ftp://127.0.0.1/push", good.p256dh, good.auth}, "{}"));
  sender.send(message({"not a url", good.p256dh, good.auth}, "{}"));
  sender.send(message(good, std::string(5000, 'x')));  // does not fit a record
  ASSERT_TRUE(sender.wait_idle(kWait));
  EXPECT_EQ(rx.count(), 0u);
  const auto dones = log.dones();
  ASSERT_EQ(dones.size(), 7u);
  for (const auto& d : dones) {
    EXPECT_EQ(d.status, 0);
    EXPECT_EQ(d.attempts, 0);
  }
  // The sender still works.
  sender.send(message(good, "{}"));
  ASSERT_TRUE(sender.wait_idle(kWait));
  EXPECT_EQ(rx.count(), 1u);
}

TEST(Sender, ManyDeliveries) {
  PushReceiver rx;
  Log log;
  std::mt19937 rng(21);
  std::vector<Browser> browsers;
  for (int i = 0; i < 8; ++i) browsers.emplace_back(rng);
  Sender sender(KeyPair::generate(), fast_options(), log.on_gone(), log.on_done());
  for (int i = 0; i < 8; ++i)
    sender.send(message(subscribe(rx.url("/push/" + std::to_string(i)), browsers[i]),
                        std::string(3000, char('a' + i))));
  ASSERT_TRUE(sender.wait_idle(kWait));
  const auto reqs = rx.requests();
  ASSERT_EQ(reqs.size(), 8u);
  for (const auto& r : reqs) {
    const int i = std::stoi(r.path.substr(6));
    EXPECT_EQ(decrypt(r.body, browsers[i].key, browsers[i].auth, nullptr), std::string(3000, char('a' + i)));
  }
  EXPECT_EQ(log.dones().size(), 8u);
}

TEST(Sender, SendFromManyThreads) {
  PushReceiver rx;
  Log log;
  std::mt19937 rng(28);
  Browser b(rng);
  const Subscription to = subscribe(rx.url(), b);
  Sender sender(KeyPair::generate(), fast_options(), log.on_gone(), log.on_done());
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 5; ++i) sender.send(message(to, std::to_string(t * 10 + i)));
    });
  for (auto& t : threads) t.join();
  ASSERT_TRUE(sender.wait_idle(kWait));
  EXPECT_EQ(rx.count(), 20u);
  EXPECT_EQ(log.dones().size(), 20u);
}

TEST(Sender, CallbacksMayThrow) {
  PushReceiver rx;
  rx.enqueue({410, 201});
  std::mt19937 rng(22);
  Browser b(rng);
  Sender sender(
      KeyPair::generate(), fast_options(), [](const std::string&) { throw std::runtime_error("gone"); },
      [](const std::string&, int, int) { throw std::runtime_error("done"); });
  sender.send(message(subscribe(rx.url(), b), "{}"));
  ASSERT_TRUE(sender.wait_idle(kWait));
  sender.send(message(subscribe(rx.url(), b), "{}"));
  ASSERT_TRUE(sender.wait_idle(kWait));
  EXPECT_EQ(rx.count(), 2u);
}

TEST(Sender, WaitIdleTimesOutWhileARetryIsPending) {
  PushReceiver rx;
  rx.enqueue({503});
  Log log;
  std::mt19937 rng(23);
  Browser b(rng);
  SenderOptions o = fast_options();
  o.first_retry_ms = 60000;
  Sender sender(KeyPair::generate(), o, log.on_gone(), log.on_done());
  sender.send(message(subscribe(rx.url(), b), "{}"));
  ASSERT_TRUE(rx.wait_for(1, std::chrono::milliseconds(kWait)));
  EXPECT_FALSE(sender.wait_idle(300));
  EXPECT_TRUE(log.dones().empty());
}

TEST(Sender, DestructorDoesNotWaitForAPendingRetry) {
  PushReceiver rx;
  rx.enqueue({503});
  Log log;
  std::mt19937 rng(24);
  Browser b(rng);
  SenderOptions o = fast_options();
  o.first_retry_ms = 60000;
  auto sender = std::make_unique<Sender>(KeyPair::generate(), o, log.on_gone(), log.on_done());
  sender->send(message(subscribe(rx.url(), b), "{}"));
  ASSERT_TRUE(rx.wait_for(1, std::chrono::milliseconds(kWait)));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // let the 503 be read
  const auto start = std::chrono::steady_clock::now();
  sender.reset();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
  EXPECT_EQ(rx.count(), 1u);
  EXPECT_TRUE(log.dones().empty());  // dropped, not reported
}

TEST(Sender, DestructorCutsARequestInFlight) {
  PushReceiver rx;
  rx.enqueue(PushReply{201, -1, 120000});
  Log log;
  std::mt19937 rng(25);
  Browser b(rng);
  SenderOptions o = fast_options();
  o.timeout_ms = 120000;
  auto sender = std::make_unique<Sender>(KeyPair::generate(), o, log.on_gone(), log.on_done());
  sender->send(message(subscribe(rx.url(), b), "{}"));
  ASSERT_TRUE(rx.wait_for(1, std::chrono::milliseconds(kWait)));
  const auto start = std::chrono::steady_clock::now();
  sender.reset();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
  EXPECT_TRUE(log.dones().empty());
}

TEST(Sender, NeverConnectsToLoopbackInAnySpelling) {
  Tarpit v4;
  ASSERT_TRUE(v4.ok());
  const std::string port = std::to_string(v4.port());
  Tarpit v6(AF_INET6, v4.port());  // ::1 on the same port, where this machine has IPv6
  Log log;
  std::mt19937 rng(29);
  Browser b(rng);
  SenderOptions o = fast_options();
  o.allow_private = false;
  // Names pinned to loopback, as a name server under someone else's control
  // could answer. No name server is asked: curl answers "localhost" and
  // "*.localhost" itself, and "localhost." only through this list.
  o.resolve = {"localhost.:" + port + ":127.0.0.1", "both.localhost:" + port + ":127.0.0.1,::1",
               "mapped.localhost:" + port + ":[::ffff:127.0.0.1]"};
  std::vector<std::string> endpoints;
  for (const char* host : {"127.0.0.1", "0x7f.0.0.1", "0x7f.1", "127.1", "2130706433", "0177.0.0.1", "localhost",
                           "push.localhost", "localhost.", "both.localhost", "mapped.localhost", "[::1]",
                           "[::ffff:127.0.0.1]", "[::ffff:7f00:1]"})
    endpoints.push_back(std::string("https://") + host + ":" + port + "/push");
  const std::string plain_http = "http://127.0.0.1:" + port + "/push";  // not even https
  {
    Sender sender(KeyPair::generate(), o, log.on_gone(), log.on_done());
    for (const auto& e : endpoints) sender.send(message(subscribe(e, b), "{}"));
    sender.send(message(subscribe(plain_http, b), "{}"));
    ASSERT_TRUE(sender.wait_idle(kWait));
  }
  std::map<std::string, Log::Done> by_endpoint;
  for (const auto& d : log.dones()) by_endpoint.emplace(d.endpoint, d);
  ASSERT_EQ(by_endpoint.size(), endpoints.size() + 1);
  for (const auto& e : endpoints) {
    ASSERT_EQ(by_endpoint.count(e), 1u) << e;
    EXPECT_EQ(by_endpoint.at(e).status, 0) << e;
    EXPECT_EQ(by_endpoint.at(e).attempts, 1) << e << ": a refused address is not tried again";
  }
  ASSERT_EQ(by_endpoint.count(plain_http), 1u);
  EXPECT_EQ(by_endpoint.at(plain_http).status, 0);
  EXPECT_EQ(by_endpoint.at(plain_http).attempts, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // any connection would have been accepted by now
  EXPECT_EQ(v4.accepted(), 0u);
  EXPECT_EQ(v6.accepted(), 0u);

  // The witnesses work: allowed, the same endpoints are connected to.
  o.allow_private = true;
  o.timeout_ms = 500;
  o.max_attempts = 1;
  Sender sender(KeyPair::generate(), o, log.on_gone(), log.on_done());
  sender.send(message(subscribe("https://127.0.0.1:" + port + "/push", b), "{}"));
  EXPECT_TRUE(v4.wait_accepted(1, std::chrono::milliseconds(kWait)));
  if (v6.ok()) {
    sender.send(message(subscribe("https://[::1]:" + port + "/push", b), "{}"));
    EXPECT_TRUE(v6.wait_accepted(1, std::chrono::milliseconds(kWait)));
  }
}

TEST(Sender, TarpitsDoNotHoldUpOthers) {
  Tarpit pits[3];
  PushReceiver rx;
  Log log;
  std::mt19937 rng(30);
  Browser b(rng);
  SenderOptions o;  // the default timeouts and parallelism
  o.allow_private = true;
  auto sender = std::make_unique<Sender>(KeyPair::generate(), o, log.on_gone(), log.on_done());
  for (auto& pit : pits) {
    ASSERT_TRUE(pit.ok());
    sender->send(message(subscribe(pit.url(), b), "{}"));
  }
  // Their requests are out and waiting for answers that never come.
  for (auto& pit : pits) ASSERT_TRUE(pit.wait_accepted(1, std::chrono::milliseconds(kWait)));

  const auto start = std::chrono::steady_clock::now();
  sender->send(message(subscribe(rx.url(), b), "{}"));
  ASSERT_TRUE(rx.wait_for(1, std::chrono::milliseconds(kWait)));
  // Well under the 5 s the tarpits take to time out.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  ASSERT_TRUE(eventually([&] { return !log.dones().empty(); }));
  const auto dones = log.dones();
  ASSERT_EQ(dones.size(), 1u);  // the tarpits' requests are still open
  EXPECT_EQ(dones[0].endpoint, rx.url());
  EXPECT_EQ(dones[0].status, 201);

  const auto stopping = std::chrono::steady_clock::now();
  sender.reset();
  EXPECT_LT(std::chrono::steady_clock::now() - stopping, std::chrono::seconds(2));
  EXPECT_EQ(log.dones().size(), 1u);  // cut, not reported
}

TEST(Sender, AServiceThatNeverAnsweredGetsOneRequestAtATime) {
  Tarpit pit;
  ASSERT_TRUE(pit.ok());
  PushReceiver rx;
  Log log;
  std::mt19937 rng(33);
  Browser b(rng);
  SenderOptions o;  // the default timeouts
  o.allow_private = true;
  o.max_parallel = 8;
  o.max_per_origin = 3;
  Sender sender(KeyPair::generate(), o, log.on_gone(), log.on_done());
  // Ten subscriptions on one service that has not answered yet...
  for (int i = 0; i < 10; ++i) sender.send(message(subscribe(pit.url() + std::to_string(i), b), "{}"));
  ASSERT_TRUE(pit.wait_accepted(1, std::chrono::milliseconds(kWait)));
  // ...hold one request, not its three, and another service is served at once.
  sender.send(message(subscribe(rx.url(), b), "{}"));
  ASSERT_TRUE(rx.wait_for(1, std::chrono::milliseconds(kWait)));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(pit.accepted(), 1u);
}

// Round 2, 1: tarpits at eight services (three subscriptions each) hold one
// request each, not every slot: another service is served at once.
TEST(Sender, TarpitsAtManyServicesLeaveSlotsForOthers) {
  Tarpit pits[8];
  PushReceiver rx;
  Log log;
  std::mt19937 rng(34);
  Browser b(rng);
  SenderOptions o;  // the default timeouts and slots
  o.allow_private = true;
  auto sender = std::make_unique<Sender>(KeyPair::generate(), o, log.on_gone(), log.on_done());
  for (auto& pit : pits) {
    ASSERT_TRUE(pit.ok());
    for (int k = 0; k < 3; ++k) sender->send(message(subscribe(pit.url() + std::to_string(k), b), "{}"));
  }
  for (auto& pit : pits) ASSERT_TRUE(pit.wait_accepted(1, std::chrono::milliseconds(kWait)));
  const auto start = std::chrono::steady_clock::now();
  sender->send(message(subscribe(rx.url(), b), "{}"));
  ASSERT_TRUE(rx.wait_for(1, std::chrono::milliseconds(kWait)));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  for (auto& pit : pits) EXPECT_EQ(pit.accepted(), 1u);
  sender.reset();
}

// Round 2, 1: one table's pushes to services that never answer hold at most
// its share of the slots: another table's push to a service not heard from
// yet (doubtful too) is not kept waiting behind them.
TEST(Sender, OneTablesPushesHoldAtMostItsShare) {
  Tarpit pits[10];
  PushReceiver rx;
  Log log;
  std::mt19937 rng(35);
  Browser b(rng);
  SenderOptions o;
  o.allow_private = true;
  o.max_parallel = 16;  // the doubtful services' half: 8
  o.max_per_group = 4;
  auto sender = std::make_unique<Sender>(KeyPair::generate(), o, log.on_gone(), log.on_done());
  for (auto& pit : pits) {
    ASSERT_TRUE(pit.ok());
    Delivery d = message(subscribe(pit.url(), b), "{}");
    d.group = "TABLEA";
    sender->send(std::move(d));
  }
  ASSERT_TRUE(eventually([&] {
    size_t n = 0;
    for (auto& pit : pits) n += pit.accepted();
    return n >= 4;
  }));
  Delivery other = message(subscribe(rx.url(), b), "{}");
  other.group = "TABLEB";
  const auto start = std::chrono::steady_clock::now();
  sender->send(std::move(other));
  ASSERT_TRUE(rx.wait_for(1, std::chrono::milliseconds(kWait)));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  size_t held = 0;
  for (auto& pit : pits) held += pit.accepted();
  EXPECT_EQ(held, 4u);
  sender.reset();
}

// Round 2, 1: a service whose requests keep failing rests: after
// `backoff_after` failures in a row nothing more is sent to it for a while,
// while others are served.
TEST(Sender, AServiceThatKeepsFailingRests) {
  Tarpit pit;
  ASSERT_TRUE(pit.ok());
  PushReceiver rx;
  Log log;
  std::mt19937 rng(35);
  Browser b(rng);
  SenderOptions o = fast_options();
  o.timeout_ms = 200;
  o.connect_timeout_ms = 200;
  o.max_attempts = 1;
  o.backoff_after = 2;
  o.origin_backoff_ms = 60000;
  auto sender = std::make_unique<Sender>(KeyPair::generate(), o, log.on_gone(), log.on_done());
  for (int i = 0; i < 5; ++i) sender->send(message(subscribe(pit.url() + std::to_string(i), b), "{}"));
  ASSERT_TRUE(eventually([&] { return log.dones().size() >= 2; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  EXPECT_EQ(pit.accepted(), 2u) << "a third request went to a service that failed twice";
  EXPECT_EQ(log.dones().size(), 2u);
  for (const auto& d : log.dones()) EXPECT_EQ(d.status, 0);
  sender->send(message(subscribe(rx.url(), b), "{}"));
  ASSERT_TRUE(rx.wait_for(1, std::chrono::milliseconds(kWait)));
  EXPECT_FALSE(sender->wait_idle(50));  // the resting service's deliveries wait
  sender.reset();
}

TEST(Sender, ARetryWaitingHoldsNoSlot) {
  PushReceiver rx;
  rx.enqueue({503});
  Log log;
  std::mt19937 rng(31);
  Browser b(rng);
  SenderOptions o = fast_options();
  o.max_parallel = 1;
  o.first_retry_ms = 60000;
  Sender sender(KeyPair::generate(), o, log.on_gone(), log.on_done());
  sender.send(message(subscribe(rx.url("/retried"), b), "{}"));
  ASSERT_TRUE(rx.wait_for(1, std::chrono::milliseconds(kWait)));
  sender.send(message(subscribe(rx.url("/next"), b), "{}"));
  ASSERT_TRUE(eventually([&] { return !log.dones().empty(); }));
  const auto dones = log.dones();
  ASSERT_EQ(dones.size(), 1u);
  EXPECT_EQ(dones[0].endpoint, rx.url("/next"));
  EXPECT_EQ(dones[0].status, 201);
  EXPECT_FALSE(sender.wait_idle(50));  // the retry is still waiting
}

TEST(Sender, OneSlotStillDeliversEverything) {
  PushReceiver rx;
  rx.enqueue({500});
  Log log;
  std::mt19937 rng(32);
  Browser b(rng);
  SenderOptions o = fast_options();
  o.max_parallel = 1;
  Sender sender(KeyPair::generate(), o, log.on_gone(), log.on_done());
  for (int i = 0; i < 6; ++i) sender.send(message(subscribe(rx.url("/push/" + std::to_string(i)), b), "{}"));
  ASSERT_TRUE(sender.wait_idle(kWait));
  EXPECT_EQ(rx.count(), 7u);  // one 500, retried
  const auto dones = log.dones();
  ASSERT_EQ(dones.size(), 6u);
  for (const auto& d : dones) EXPECT_EQ(d.status, 201) << d.endpoint;
}

TEST(Sender, TurnsAwayDeliveriesPastMaxQueue) {
  Tarpit pit, pit2;  // two services: one that never answered gets one request at a time
  ASSERT_TRUE(pit.ok() && pit2.ok());
  Log log;
  std::mt19937 rng(33);
  Browser b(rng);
  SenderOptions o = fast_options();
  o.max_queue = 3;
  o.max_parallel = 4;  // two for services not yet heard from: one of the three waits, two are in flight
  o.timeout_ms = 120000;
  o.connect_timeout_ms = 120000;
  auto sender = std::make_unique<Sender>(KeyPair::generate(), o, log.on_gone(), log.on_done());
  auto endpoint = [&](int i) { return (i % 2 ? pit2 : pit).url() + "/" + std::to_string(i); };
  for (int i = 0; i < 3; ++i) sender->send(message(subscribe(endpoint(i), b), "{}"));
  ASSERT_TRUE(pit.wait_accepted(1, std::chrono::milliseconds(kWait)) && pit2.wait_accepted(1, std::chrono::milliseconds(kWait)));
  for (int i = 3; i < 5; ++i) sender->send(message(subscribe(endpoint(i), b), "{}"));
  ASSERT_TRUE(eventually([&] { return log.dones().size() >= 2; }));
  const auto dones = log.dones();
  ASSERT_EQ(dones.size(), 2u);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(dones[i].endpoint, endpoint(3 + i));
    EXPECT_EQ(dones[i].status, 0);
    EXPECT_EQ(dones[i].attempts, 0);
  }
  EXPECT_EQ(sender->figures().failed, 2u);  // turned away
  EXPECT_FALSE(sender->wait_idle(50));  // the first three are still pending
  EXPECT_EQ(pit.accepted() + pit2.accepted(), 2u);
  const auto stopping = std::chrono::steady_clock::now();
  sender.reset();
  EXPECT_LT(std::chrono::steady_clock::now() - stopping, std::chrono::seconds(20));
  EXPECT_EQ(log.dones().size(), 2u);
}

// ------------------------------------------------------------- PushReceiver

TEST(PushReceiver, ReadsChunkedBodies) {
  PushReceiver rx;
  rx.enqueue(PushReply{202, 7});
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(static_cast<uint16_t>(rx.port()));
  ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  const std::string req =
      "POST /x HTTP/1.1\r\nHost: h\r\nX-Test: 1\r\nx-test: 2\r\nTransfer-Encoding: chunked\r\n\r\n"
      "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n";
  ASSERT_EQ(::send(fd, req.data(), req.size(), MSG_NOSIGNAL), ssize_t(req.size()));
  std::string answer;
  char buf[512];
  for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;) answer.append(buf, size_t(n));
  ::close(fd);
  EXPECT_EQ(answer.rfind("HTTP/1.1 202 Accepted\r\n", 0), 0u) << answer;
  EXPECT_NE(answer.find("Retry-After: 7\r\n"), std::string::npos);
  ASSERT_EQ(rx.count(), 1u);
  const auto r = rx.requests()[0];
  EXPECT_EQ(r.body, "hello world");
  EXPECT_EQ(r.header("x-test"), "1, 2");
}

}  // namespace
