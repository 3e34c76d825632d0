// A host-only program in the style of CANN's runtime examples (EXPECT,
// INFO_LOG): the log library of base/acl_log.h, linked against
// libascendalog.so. Records of a user module through the weak record
// functions (variadic and va_list forms), level checks, callbacks and
// their misuses. Run with ASCEND_SLOG_PRINT_TO_STDOUT=1 and
// ASCEND_GLOBAL_LOG_LEVEL=1, it checks every result and exits non-zero on
// the first mismatch; the last line is "alog: ok". C++11.
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include "base/acl_log.h"

#define INFO_LOG(fmt, ...) fprintf(stdout, "[INFO]  " fmt "\n", ##__VA_ARGS__)
#define ERROR_LOG(fmt, ...) fprintf(stderr, "[ERROR] " fmt "\n", ##__VA_ARGS__)
#define EXPECT(cond)                                            \
    do {                                                        \
        if (!(cond)) {                                          \
            ERROR_LOG("line %d: expected %s", __LINE__, #cond); \
            exit(1);                                            \
        }                                                       \
    } while (0)

namespace {
const int32_t kModule = 0xff01;
int g_calls = 0;

int32_t Count(void* data, uint32_t, const char*, size_t)
{
    ++*static_cast<int*>(data);
    return 0;
}

void Logv(int32_t module, int32_t level, const char* fmt, ...)
{
    va_list list;
    va_start(list, fmt);
    acllogVaList(module, level, fmt, list);
    // The list is not consumed: a second use prints the same arguments.
    acllogVaList(module, level, fmt, list);
    va_end(list);
}
} // namespace

int main()
{
    EXPECT(acllogRecord != nullptr && acllogVaList != nullptr && acllogCheckDebugLevel != nullptr);
    fflush(stdout);
    acllogRecord(kModule, DLOG_INFO, "alog sample: %d %s %.1f", 42, "text", 1.5);
    acllogRecord(kModule, DLOG_DEBUG, "alog sample: below the level");
    acllogRecord(static_cast<int32_t>(kModule | RUN_LOG_MASK), DLOG_INFO, "alog sample: run %u", 7u);
    Logv(kModule, DLOG_WARN, "alog sample: va_list %s %d", "twice", 2);
    acllogRecord(kModule, DLOG_ERROR, nullptr);
    acllogRecord(-1, DLOG_ERROR, "alog sample: never");

    EXPECT(acllogCheckDebugLevel(kModule, DLOG_INFO) == 1);
    EXPECT(acllogCheckDebugLevel(kModule, DLOG_DEBUG) == 0);
    EXPECT(acllogCheckDebugLevel(kModule, DLOG_NULL + 1) == 0);
    EXPECT(acllogCheckDebugLevel(-1, DLOG_ERROR) == 0);

    acllogCallbackHandle debug = 0;
    acllogCallbackHandle both = 0;
    EXPECT(acllogRegisterCallback(Count, &g_calls, OUTPUT_TYPE_DEBUG, &debug) == 0);
    EXPECT(acllogRegisterCallback(Count, &g_calls, OUTPUT_TYPE_BOTH, &both) == 0);
    EXPECT(debug != both);
    EXPECT(acllogRegisterCallback(nullptr, nullptr, OUTPUT_TYPE_BOTH, &debug) == -1);
    EXPECT(acllogRegisterCallback(Count, nullptr, OUTPUT_TYPE_MAX, &debug) == -1);
    EXPECT(acllogRegisterCallback(Count, nullptr, OUTPUT_TYPE_RUN, nullptr) == -1);
    // Host records are not the device's: no callback runs for them.
    acllogRecord(kModule, DLOG_ERROR, "alog sample: host record");
    EXPECT(g_calls == 0);
    EXPECT(acllogUnregisterCallback(debug) == 0);
    EXPECT(acllogUnregisterCallback(debug) == -1);
    EXPECT(acllogUnregisterCallback(both) == 0);
    INFO_LOG("alog: ok");
    return 0;
}
