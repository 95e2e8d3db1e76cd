#include "ccurl.h"

CURLcode ccurl_easy_setopt_long(CURL *easy, CURLoption option, long value) { return curl_easy_setopt(easy, option, value); }
CURLcode ccurl_easy_setopt_ptr(CURL *easy, CURLoption option, void *value) { return curl_easy_setopt(easy, option, value); }
CURLcode ccurl_easy_setopt_string(CURL *easy, CURLoption option, const char *value) {
    return curl_easy_setopt(easy, option, value);
}
CURLcode ccurl_easy_setopt_data_callback(CURL *easy, CURLoption option, ccurl_data_callback cb) {
    return curl_easy_setopt(easy, option, cb);
}
CURLcode ccurl_easy_setopt_closesocket(CURL *easy, ccurl_closesocket_callback cb, void *clientp) {
    CURLcode rc = curl_easy_setopt(easy, CURLOPT_CLOSESOCKETFUNCTION, cb);
    if (rc != CURLE_OK) return rc;
    return curl_easy_setopt(easy, CURLOPT_CLOSESOCKETDATA, clientp);
}
CURLcode ccurl_easy_getinfo_long(CURL *easy, CURLINFO info, long *value) { return curl_easy_getinfo(easy, info, value); }
CURLcode ccurl_easy_getinfo_ptr(CURL *easy, CURLINFO info, void **value) { return curl_easy_getinfo(easy, info, value); }

CURLMcode ccurl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) { return curl_multi_setopt(multi, option, value); }
CURLMcode ccurl_multi_setopt_socket(CURLM *multi, ccurl_socket_callback cb, void *userp) {
    CURLMcode rc = curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, cb);
    if (rc != CURLM_OK) return rc;
    return curl_multi_setopt(multi, CURLMOPT_SOCKETDATA, userp);
}
CURLMcode ccurl_multi_setopt_timer(CURLM *multi, ccurl_timer_callback cb, void *userp) {
    CURLMcode rc = curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, cb);
    if (rc != CURLM_OK) return rc;
    return curl_multi_setopt(multi, CURLMOPT_TIMERDATA, userp);
}

int ccurl_multi_next_done(CURLM *multi, CURL **easy, CURLcode *result) {
    int left = 0;
    CURLMsg *msg;
    while ((msg = curl_multi_info_read(multi, &left)) != NULL) {
        if (msg->msg == CURLMSG_DONE) {
            *easy = msg->easy_handle;
            *result = msg->data.result;
            return 1;
        }
    }
    return 0;
}
