// A host-only program in the style of CANN's runtime examples (CHECK_ERROR,
// INFO_LOG, a report thread whose id is std::this_thread::get_id()): the
// package version and run mode, contexts shared across threads, a stream
// that stops on failure, host functions and callbacks (blocking and not),
// events with flags (timed synchronisation, waits, reset), and teardown
// with the Force calls. It checks every result and exits non-zero on the
// first mismatch; the last line is "runtime_calls: ok". C++11.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <thread>
#include <vector>
#include "acl/acl.h"

#define INFO_LOG(fmt, ...) fprintf(stdout, "[INFO]  " fmt "\n", ##__VA_ARGS__)
#define ERROR_LOG(fmt, ...) fprintf(stderr, "[ERROR] " fmt "\n", ##__VA_ARGS__)
#define CHECK_ERROR(call)                                                           \
    do {                                                                            \
        aclError ret_ = (call);                                                     \
        if (ret_ != ACL_SUCCESS) {                                                  \
            const char* msg_ = aclGetRecentErrMsg();                                \
            ERROR_LOG("%s failed: %d (%s)", #call, ret_, msg_ ? msg_ : "");          \
            exit(1);                                                                \
        }                                                                           \
    } while (0)
#define EXPECT(cond)                                         \
    do {                                                     \
        if (!(cond)) {                                       \
            ERROR_LOG("line %d: expected %s", __LINE__, #cond); \
            exit(1);                                         \
        }                                                    \
    } while (0)

namespace {
aclrtContext g_context = nullptr;
std::atomic<bool> g_reportLoop(true);
std::atomic<int> g_callbacks(0);
std::atomic<int> g_hostFuncs(0);
std::string g_reportThreadId;

std::string ThreadIdString(std::thread::id tid)
{
    std::ostringstream oss;
    oss << tid;
    return oss.str();
}

void ReportThread()
{
    // The report thread works in the main thread's context.
    CHECK_ERROR(aclrtSetCurrentContext(g_context));
    while (g_reportLoop) {
        (void)aclrtProcessReport(100);
    }
}

void CallbackFunc(void* userData)
{
    EXPECT(ThreadIdString(std::this_thread::get_id()) == g_reportThreadId);
    EXPECT(*static_cast<int*>(userData) == 520);
    g_callbacks++;
}

void HostFunc(void* args)
{
    int* order = static_cast<int*>(args);
    // Host functions run one after another, in stream order.
    EXPECT(*order == g_hostFuncs.load());
    g_hostFuncs++;
}

void VersionAndRunMode()
{
    char pkgName[] = "runtime";
    char versionStr[ACL_PKG_VERSION_MAX_SIZE] = {0};
    int32_t versionNum = 0;
    CHECK_ERROR(aclsysGetVersionStr(pkgName, versionStr));
    CHECK_ERROR(aclsysGetVersionNum(pkgName, &versionNum));
    INFO_LOG("CANN package [%s] version %s (%d)", pkgName, versionStr, versionNum);
    EXPECT(strlen(versionStr) > 0 && versionNum > 0);
    char missing[] = "no-such-package";
    EXPECT(aclsysGetVersionStr(missing, versionStr) == ACL_ERROR_INVALID_FILE);
    aclrtRunMode runMode = ACL_DEVICE;
    CHECK_ERROR(aclrtGetRunMode(&runMode));
    EXPECT(runMode == ACL_HOST);
}

void Contexts(int32_t deviceId)
{
    aclrtContext current = nullptr;
    CHECK_ERROR(aclrtGetCurrentContext(&current));
    EXPECT(current == g_context);
    // Another thread takes the context, and with it the device.
    std::thread other([deviceId]() {
        CHECK_ERROR(aclrtSetCurrentContext(g_context));
        int32_t dev = -1;
        CHECK_ERROR(aclrtGetDevice(&dev));
        EXPECT(dev == deviceId);
        aclrtStream defaultStream = nullptr;
        CHECK_ERROR(aclrtCtxGetCurrentDefaultStream(&defaultStream));
        CHECK_ERROR(aclrtSynchronizeStream(defaultStream));
    });
    other.join();
    EXPECT(aclrtDestroyContext(nullptr) == ACL_ERROR_INVALID_PARAM);
}

void FailureModeAndHostFuncs(aclrtStream stream)
{
    CHECK_ERROR(aclrtSetStreamFailureMode(stream, ACL_STOP_ON_FAILURE));
    static int order[3] = {0, 1, 2};
    uint32_t* numDevice = nullptr;
    uint32_t num = 0;
    CHECK_ERROR(aclrtMalloc((void**)&numDevice, sizeof(num), ACL_MEM_MALLOC_HUGE_FIRST));
    for (int i = 0; i < 3; i++) {
        CHECK_ERROR(aclrtMemsetAsync(numDevice, sizeof(num), i, sizeof(num), stream));
        CHECK_ERROR(aclrtLaunchHostFunc(stream, HostFunc, &order[i]));
    }
    CHECK_ERROR(aclrtSynchronizeStream(stream));
    EXPECT(g_hostFuncs == 3);
    CHECK_ERROR(aclrtMemcpy(&num, sizeof(num), numDevice, sizeof(num), ACL_MEMCPY_DEVICE_TO_HOST));
    EXPECT(num == 0x02020202U);
    CHECK_ERROR(aclrtFree(numDevice));
}

std::atomic<int> g_afterFailure(0);

void Sleep50(void*)
{
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
}

void AfterFailure(void*)
{
    g_afterFailure++;
}

void StopOnFailure()
{
    aclrtStream s = nullptr;
    CHECK_ERROR(aclrtCreateStream(&s));
    CHECK_ERROR(aclrtSetStreamFailureMode(s, ACL_STOP_ON_FAILURE));
    void* dev = nullptr;
    CHECK_ERROR(aclrtMalloc(&dev, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    // The memset waits behind a host function while its memory is freed:
    // when it runs it touches freed memory, an illegal access that fails
    // the stream.
    CHECK_ERROR(aclrtLaunchHostFunc(s, Sleep50, nullptr));
    CHECK_ERROR(aclrtMemsetAsync(dev, 64, 1, 64, s));
    (void)aclrtFree(dev);
    CHECK_ERROR(aclrtLaunchHostFunc(s, AfterFailure, nullptr));
    aclError first = aclrtSynchronizeStream(s);
    EXPECT(first != ACL_SUCCESS);
    // Stopped for good: later tasks do not run, every synchronisation fails.
    CHECK_ERROR(aclrtLaunchHostFunc(s, AfterFailure, nullptr));
    EXPECT(aclrtSynchronizeStream(s) == first);
    EXPECT(g_afterFailure == 0);
    INFO_LOG("a stream that stops on failure reports %d on every synchronisation", first);
    CHECK_ERROR(aclrtDestroyStreamForce(s));
}

void Callbacks(aclrtStream stream)
{
    std::thread reportThread(ReportThread);
    g_reportThreadId = ThreadIdString(reportThread.get_id());
    uint64_t tid = std::stoull(g_reportThreadId);
    int* userData = new int(520);
    CHECK_ERROR(aclrtSubscribeReport(tid, stream));
    EXPECT(aclrtSubscribeReport(tid, stream) != ACL_SUCCESS);
    CHECK_ERROR(aclrtLaunchCallback(CallbackFunc, userData, ACL_CALLBACK_BLOCK, stream));
    for (int i = 0; i < 4; i++) {
        CHECK_ERROR(aclrtLaunchCallback(CallbackFunc, userData, ACL_CALLBACK_NO_BLOCK, stream));
    }
    CHECK_ERROR(aclrtLaunchCallback(CallbackFunc, userData, ACL_CALLBACK_BLOCK, stream));
    CHECK_ERROR(aclrtSynchronizeStream(stream));
    // The last callback blocked the stream: all six have run.
    EXPECT(g_callbacks == 6);
    g_reportLoop = false;
    reportThread.join();
    CHECK_ERROR(aclrtUnSubscribeReport(tid, stream));
    EXPECT(aclrtProcessReport(10) != ACL_SUCCESS);
    delete userData;
}

void Events(aclrtStream stream)
{
    aclrtStream other = nullptr;
    CHECK_ERROR(aclrtCreateStream(&other));
    aclrtEvent start = nullptr;
    aclrtEvent end = nullptr;
    aclrtEvent reusable = nullptr;
    CHECK_ERROR(aclrtCreateEventWithFlag(&start, ACL_EVENT_TIME_LINE | ACL_EVENT_SYNC));
    CHECK_ERROR(aclrtCreateEventWithFlag(&end, ACL_EVENT_TIME_LINE | ACL_EVENT_SYNC));
    CHECK_ERROR(aclrtCreateEventExWithFlag(&reusable, ACL_EVENT_SYNC));
    EXPECT(aclrtCreateEventWithFlag(&start, 0x4U) != ACL_SUCCESS);

    CHECK_ERROR(aclrtRecordEventWithFlag(start, stream, ACL_EVENT_RECORD_DEFAULT));
    CHECK_ERROR(aclrtLaunchHostFunc(stream, Sleep50, nullptr));
    CHECK_ERROR(aclrtRecordEventWithFlag(end, stream, ACL_EVENT_RECORD_DEFAULT));
    // Not reached yet: polling and a short wait time out.
    EXPECT(aclrtSynchronizeEventWithTimeout(end, 0) == ACL_ERROR_RT_EVENT_SYNC_TIMEOUT);
    // The other stream waits for it (no limit), then records the reusable event.
    CHECK_ERROR(aclrtStreamWaitEventWithFlag(other, end, 0, ACL_EVENT_WAIT_DEFAULT));
    for (int i = 0; i < 3; i++) {
        CHECK_ERROR(aclrtRecordEvent(reusable, other));
    }
    CHECK_ERROR(aclrtSynchronizeEventWithTimeout(reusable, 5000));
    float ms = 0.0f;
    CHECK_ERROR(aclrtEventElapsedTime(&ms, start, end));
    INFO_LOG("a 50 ms host function took %.1f ms between the events", ms);
    EXPECT(ms >= 40.0f);
    // Reset: the event is back to its initial state.
    CHECK_ERROR(aclrtResetEvent(end, other));
    CHECK_ERROR(aclrtSynchronizeStream(other));
    EXPECT(aclrtEventElapsedTime(&ms, start, end) != ACL_SUCCESS);
    EXPECT(aclrtResetEvent(reusable, other) != ACL_SUCCESS);
    CHECK_ERROR(aclrtDestroyEvent(start));
    CHECK_ERROR(aclrtDestroyEvent(end));
    CHECK_ERROR(aclrtDestroyEvent(reusable));
    CHECK_ERROR(aclrtDestroyStreamForce(other));
}
} // namespace

int main()
{
    int32_t deviceId = 0;
    aclrtStream stream = nullptr;
    CHECK_ERROR(aclInit(nullptr));
    VersionAndRunMode();
    CHECK_ERROR(aclrtSetDevice(deviceId));
    CHECK_ERROR(aclrtCreateContext(&g_context, deviceId));
    CHECK_ERROR(aclrtCreateStream(&stream));
    Contexts(deviceId);
    FailureModeAndHostFuncs(stream);
    StopOnFailure();
    Callbacks(stream);
    Events(stream);
    CHECK_ERROR(aclrtDestroyStreamForce(stream));
    CHECK_ERROR(aclrtDestroyContext(g_context));
    CHECK_ERROR(aclrtResetDeviceForce(deviceId));
    CHECK_ERROR(aclFinalize());
    printf("runtime_calls: ok\n");
    return 0;
}
