// A host-only program in the style of CANN's runtime examples
// (CHECK_ERROR, INFO_LOG): graph capture of a stream's tasks into a model
// running instance (aclmdlRICaptureBegin/End), replayed many times
// (aclmdlRIExecuteAsync, aclmdlRIExecute), a second stream joined through
// events and rejoined before the end, the capture mode refusing an unsafe
// call, a synchronisation refused during capture, and aclmdlRIDestroy.
// It checks every result and exits non-zero on the first mismatch; the
// last line is "capture: ok". C++11.
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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
#define EXPECT(cond)                                            \
    do {                                                        \
        if (!(cond)) {                                          \
            ERROR_LOG("line %d: expected %s", __LINE__, #cond); \
            exit(1);                                            \
        }                                                       \
    } while (0)

namespace {
std::atomic<int> g_hostFuncs(0);

void CountHostFunc(void*)
{
    g_hostFuncs++;
}
}  // namespace

int main()
{
    const int32_t deviceId = 0;
    const size_t size = 4096;
    CHECK_ERROR(aclInit(nullptr));
    CHECK_ERROR(aclrtSetDevice(deviceId));
    aclrtStream stream = nullptr;
    aclrtStream side = nullptr;
    CHECK_ERROR(aclrtCreateStream(&stream));
    CHECK_ERROR(aclrtCreateStream(&side));

    void* hostIn = nullptr;
    void* hostOut = nullptr;
    void* devA = nullptr;
    void* devB = nullptr;
    CHECK_ERROR(aclrtMallocHost(&hostIn, size));
    CHECK_ERROR(aclrtMallocHost(&hostOut, size));
    CHECK_ERROR(aclrtMalloc(&devA, size, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ERROR(aclrtMalloc(&devB, size, ACL_MEM_MALLOC_HUGE_FIRST));
    aclrtEvent fork = nullptr;
    aclrtEvent join = nullptr;
    CHECK_ERROR(aclrtCreateEvent(&fork));
    CHECK_ERROR(aclrtCreateEvent(&join));

    // Capture: upload, a copy on a second stream forked and joined with
    // events, a fill, a download and a host function.
    CHECK_ERROR(aclmdlRICaptureBegin(stream, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    aclmdlRICaptureStatus status = ACL_MODEL_RI_CAPTURE_STATUS_NONE;
    aclmdlRI active = nullptr;
    CHECK_ERROR(aclmdlRICaptureGetInfo(stream, &status, &active));
    EXPECT(status == ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE && active != nullptr);
    CHECK_ERROR(aclrtMemcpyAsync(devA, size, hostIn, size, ACL_MEMCPY_HOST_TO_DEVICE, stream));
    CHECK_ERROR(aclrtRecordEvent(fork, stream));
    CHECK_ERROR(aclrtStreamWaitEvent(side, fork));
    CHECK_ERROR(aclrtMemcpyAsync(devB, size, devA, size, ACL_MEMCPY_DEVICE_TO_DEVICE, side));
    CHECK_ERROR(aclrtMemsetAsync(devB, size, 0x11, 16, side));
    CHECK_ERROR(aclrtRecordEvent(join, side));
    CHECK_ERROR(aclrtStreamWaitEvent(stream, join));
    CHECK_ERROR(aclrtMemcpyAsync(hostOut, size, devB, size, ACL_MEMCPY_DEVICE_TO_HOST, stream));
    CHECK_ERROR(aclrtLaunchHostFunc(stream, CountHostFunc, nullptr));
    // What the GLOBAL mode and the capture refuse.
    EXPECT(aclrtMemset(devA, size, 0, size) == ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT);
    EXPECT(aclrtSynchronizeStream(stream) == ACL_ERROR_RT_STREAM_CAPTURED);
    aclmdlRI model = nullptr;
    CHECK_ERROR(aclmdlRICaptureEnd(stream, &model));
    EXPECT(model == active);
    EXPECT(g_hostFuncs == 0);
    INFO_LOG("captured model %p", model);

    // Replays: each sees the host data of the moment.
    const int replays = 20;
    for (int i = 0; i < replays; ++i) {
        memset(hostIn, i + 1, size);
        memset(hostOut, 0, size);
        CHECK_ERROR(aclmdlRIExecuteAsync(model, stream));
        CHECK_ERROR(aclrtSynchronizeStream(stream));
        const unsigned char* out = static_cast<const unsigned char*>(hostOut);
        for (size_t j = 0; j < size; ++j) {
            EXPECT(out[j] == (j < 16 ? 0x11 : static_cast<unsigned char>(i + 1)));
        }
    }
    EXPECT(g_hostFuncs == replays);
    memset(hostIn, 0x7f, size);
    CHECK_ERROR(aclmdlRIExecute(model, -1));
    EXPECT(static_cast<const unsigned char*>(hostOut)[100] == 0x7f);
    EXPECT(g_hostFuncs == replays + 1);
    INFO_LOG("%d replays and one synchronous execution passed", replays);

    CHECK_ERROR(aclmdlRIDestroy(model));
    EXPECT(aclmdlRIDestroy(model) == ACL_ERROR_RT_INVALID_HANDLE);
    CHECK_ERROR(aclrtDestroyEvent(fork));
    CHECK_ERROR(aclrtDestroyEvent(join));
    CHECK_ERROR(aclrtFree(devA));
    CHECK_ERROR(aclrtFree(devB));
    CHECK_ERROR(aclrtFreeHost(hostIn));
    CHECK_ERROR(aclrtFreeHost(hostOut));
    CHECK_ERROR(aclrtDestroyStreamForce(side));
    CHECK_ERROR(aclrtDestroyStreamForce(stream));
    CHECK_ERROR(aclrtResetDeviceForce(deviceId));
    CHECK_ERROR(aclFinalize());
    printf("capture: ok\n");
    return 0;
}
