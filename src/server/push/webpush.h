// Web Push on OpenSSL 3 and libcurl: message encryption (RFC 8291,
// "aes128gcm" of RFC 8188), VAPID (RFC 8292, ES256 JWT) and delivery to a
// push service (RFC 8030) on a thread of its own, many requests at once, with
// retries, so that a slow or failing push service never holds up a move nor
// another table's notification.
#pragma once

#include <sys/socket.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace makruk::server::webpush {

// base64url without padding (RFC 4648 §5), as browsers and VAPID use it.
// decode also accepts padding; nullopt for any other character.
std::string b64url_encode(std::string_view bytes);
std::optional<std::string> b64url_decode(std::string_view text);

// A P-256 key pair.
class KeyPair {
 public:
  static KeyPair generate();
  // From the 32-byte private scalar; nullopt when it is not a valid key.
  static std::optional<KeyPair> from_private(std::string_view raw32);
  // From a PEM text (as save_pem writes); nullopt when unreadable.
  static std::optional<KeyPair> from_pem(std::string_view pem);
  std::string public_raw() const;   // 65 bytes, uncompressed point (0x04 || X || Y)
  std::string private_raw() const;  // 32 bytes
  std::string to_pem() const;       // PKCS#8 PEM of the private key
  void* evp() const { return key_.get(); }  // EVP_PKEY*

 private:
  std::shared_ptr<void> key_;
};

// The server's VAPID key pair: read from DIR/vapid.pem, or made and written
// there (mode 0600) on first start. Throws std::runtime_error when the file
// exists but cannot be read, or cannot be written.
KeyPair load_or_create_vapid(const std::string& dir);

// RFC 8291: the request body for `plaintext`, to the browser whose
// subscription keys are `ua_public` (65 bytes) and `auth_secret` (16 bytes).
// `as_key` and `salt` (16 bytes) are fresh random ones unless given (tests).
// One record; `plaintext` must fit it (at most record_size - 17 bytes).
// Throws std::invalid_argument on bad keys or sizes.
std::string encrypt(std::string_view plaintext, std::string_view ua_public, std::string_view auth_secret,
                    const KeyPair* as_key = nullptr, std::string_view salt = {}, uint32_t record_size = 4096);
// The browser's side: the plaintext of an aes128gcm body, or nullopt with *error.
std::optional<std::string> decrypt(std::string_view body, const KeyPair& ua_key, std::string_view auth_secret,
                                   std::string* error);

// RFC 8292: the Authorization header value "vapid t=<JWT>, k=<public key>"
// for a push service at `audience` (its origin, "https://host[:port]").
std::string vapid_authorization(const KeyPair& key, std::string_view audience, std::string_view subject,
                                int64_t expires_unix_s);
// Checks a header as a push service would: the JWT's ES256 signature against
// the key in k=, its "aud" equal to `audience`, its "exp" after `now_unix_s`
// and at most 24 hours ahead, and a "sub". False with *error otherwise.
bool verify_vapid(std::string_view header, std::string_view audience, int64_t now_unix_s, std::string* error);

// "https://push.example.net/a/b" -> "https://push.example.net"; "" when the
// text is not an absolute http(s) URL.
std::string origin_of(std::string_view url);

// Whether a push may be sent to `addr` (AF_INET or AF_INET6, `len` bytes):
// false for this machine, private, shared (CGNAT), link-local, documentation,
// benchmarking, multicast and reserved addresses; an IPv4 address carried in
// an IPv6 one (mapped, NAT64, 6to4) is judged by the IPv4 rules, and the old
// IPv4-compatible block ::/96 is refused whole. False too for any other
// family, or a length too short for the family. A subscription endpoint is
// chosen by whoever subscribes: without this check the server could be made
// to send requests into its own network.
bool is_public_address(const sockaddr* addr, socklen_t len);

struct Subscription {
  std::string endpoint;
  std::string p256dh;  // base64url, as PushSubscription.toJSON() gives them
  std::string auth;
};

struct Delivery {
  Subscription to;
  std::string payload;      // plaintext (JSON), at most 3,000 bytes
  int ttl_s = 4 * 24 * 3600;
  std::string topic;        // optional: a newer message with the same topic replaces an undelivered one
  std::string urgency = "normal";
  // Deliveries of one group (a table) share at most max_per_group requests
  // in flight, so that one table's pushes never hold another's; "" is no group.
  std::string group;
};

struct SenderOptions {
  std::string subject = "mailto:admin@localhost";  // VAPID "sub"
  int max_attempts = 5;           // 1 + retries
  int64_t first_retry_ms = 2000;  // then multiplied by `backoff` each time
  double backoff = 4.0;
  long timeout_ms = 5000;          // per request, from start to answer
  long connect_timeout_ms = 2000;  // per request, to open the connection
  size_t max_parallel = 32;        // requests in flight at once
  size_t max_per_origin = 4;       // of them, to one push service (origin) that answers well
  size_t max_per_group = 8;        // of them, for one group (a table)
  // A push service that has not answered yet, or whose last request failed
  // (no answer in time, 429 or 5xx), is doubtful: it gets one request at a
  // time, and the doubtful ones together at most half the slots, so that
  // tarpits at many origins cannot take every slot. After `backoff_after`
  // failures in a row it gets none for a while (`origin_backoff_ms`,
  // doubling with each further failure, at most max_retry_wait_ms).
  int backoff_after = 3;
  int64_t origin_backoff_ms = 30000;
  int64_t max_retry_wait_ms = 10 * 60 * 1000;  // the longest wait before a retry, Retry-After included
  // Deliveries not yet finished (waiting, in flight or waiting for a retry);
  // past it, send() turns new ones away (on_done with status 0, attempts 0).
  size_t max_queue = 10000;
  // Connect to any address, by http or https (tests, whose push service is
  // a plain-http one on loopback). Otherwise only https endpoints are tried
  // (others finish at once, status 0, attempts 0), and every connection is
  // checked against is_public_address as it is opened: a refused address
  // finishes the delivery, status 0, without a retry.
  bool allow_private = false;
  // Fixed answers for host names, in curl's "HOST:PORT:ADDRESS" form, used
  // instead of the resolver (tests: names that point at loopback without
  // asking a name server).
  std::vector<std::string> resolve;
};

// What a delivery came to, by the last HTTP status of its push service (0:
// no answer, or not tried): accepted (2xx), the subscription gone (404 or
// 410), or failed (anything else).
enum class Finished { Delivered, Gone, Failed };
inline Finished finished_as(int status) {
  if (status >= 200 && status < 300) return Finished::Delivered;
  return status == 404 || status == 410 ? Finished::Gone : Finished::Failed;
}

// Delivers on its own thread, up to max_parallel requests at once, so that a
// push service that accepts a connection and never answers holds up only its
// own deliveries (see SenderOptions for how slots are shared among services). Answers 201/200/202 are success; 404 and 410 mean the
// subscription is gone (on_gone is called, no retry); 429, 5xx and network
// failures are retried with backoff (honouring Retry-After), a retry waiting
// without holding a request slot; other 4xx answers, and endpoints whose
// address is refused, are given up at once. Callbacks run on the sender's
// thread.
class Sender {
 public:
  using Gone = std::function<void(const std::string& endpoint)>;
  // Called once per delivery when it is finished: the last HTTP status (0 for
  // a network failure) and the attempts made.
  using Done = std::function<void(const std::string& endpoint, int status, int attempts)>;
  Sender(KeyPair vapid, SenderOptions options, Gone on_gone, Done on_done = {});
  ~Sender();  // stops the thread; requests in flight and pending retries are dropped, not reported
  Sender(const Sender&) = delete;
  Sender& operator=(const Sender&) = delete;

  // Queues `d`. Past max_queue it is turned away instead: on_done(endpoint,
  // 0, 0), called on the sender's thread like every other callback.
  void send(Delivery d);
  // Waits until nothing is queued or in flight (tests); false on timeout.
  bool wait_idle(int64_t timeout_ms);
  // Deliveries not yet finished: waiting, in flight or waiting for a retry.
  size_t pending() const;
  // Deliveries finished so far: accepted by the push service (2xx); gone
  // (404/410); failed (any other answer, none, or turned away); and the
  // retries made along the way.
  struct Figures {
    uint64_t delivered = 0, gone = 0, failed = 0, retries = 0;
  };
  Figures figures() const;
  const KeyPair& vapid() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace makruk::server::webpush
