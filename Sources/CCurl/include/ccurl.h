#ifndef CCURL_H
#define CCURL_H
// Typed, non-variadic wrappers around libcurl's variadic setopt/getinfo, which Swift cannot call.
#include <curl/curl.h>

typedef size_t (*ccurl_data_callback)(char *ptr, size_t size, size_t nmemb, void *userdata);
typedef int (*ccurl_socket_callback)(CURL *easy, curl_socket_t s, int what, void *userp, void *socketp);
typedef int (*ccurl_timer_callback)(CURLM *multi, long timeout_ms, void *userp);
typedef int (*ccurl_closesocket_callback)(void *clientp, curl_socket_t item);

CURLcode ccurl_easy_setopt_long(CURL *easy, CURLoption option, long value);
CURLcode ccurl_easy_setopt_ptr(CURL *easy, CURLoption option, void *value);
CURLcode ccurl_easy_setopt_string(CURL *easy, CURLoption option, const char *value);
CURLcode ccurl_easy_setopt_data_callback(CURL *easy, CURLoption option, ccurl_data_callback cb);
CURLcode ccurl_easy_setopt_closesocket(CURL *easy, ccurl_closesocket_callback cb, void *clientp);
CURLcode ccurl_easy_getinfo_long(CURL *easy, CURLINFO info, long *value);
CURLcode ccurl_easy_getinfo_ptr(CURL *easy, CURLINFO info, void **value);

CURLMcode ccurl_multi_setopt_long(CURLM *multi, CURLMoption option, long value);
CURLMcode ccurl_multi_setopt_socket(CURLM *multi, ccurl_socket_callback cb, void *userp);
CURLMcode ccurl_multi_setopt_timer(CURLM *multi, ccurl_timer_callback cb, void *userp);

/// The easy handle and result of a finished transfer from curl_multi_info_read, or 0 when none is left.
int ccurl_multi_next_done(CURLM *multi, CURL **easy, CURLcode *result);
#endif
