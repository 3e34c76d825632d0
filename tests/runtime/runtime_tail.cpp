// A host-only program in the style of CANN's runtime examples (CHECK_ERROR,
// INFO_LOG): the rest of the runtime calls the host-only examples use, one
// function per area. It checks every result and exits non-zero on the
// first mismatch; the last line is "runtime_tail: ok". Needs two devices
// (NPU_SIM_DEVICES=2). C++11.
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
// A model's input described the way CANN's examples describe one.
void DataBuffers()
{
    const size_t size = 4 * sizeof(float);
    void* dev = nullptr;
    CHECK_ERROR(aclrtMalloc(&dev, size, ACL_MEM_MALLOC_HUGE_FIRST));
    aclDataBuffer* buffer = aclCreateDataBuffer(dev, size);
    EXPECT(buffer != nullptr);
    EXPECT(aclGetDataBufferAddr(buffer) == dev);
    EXPECT(aclGetDataBufferSizeV2(buffer) == size);
    // Reused for another allocation, as the reusable-buffer example does.
    void* other = nullptr;
    CHECK_ERROR(aclrtMalloc(&other, 2 * size, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ERROR(aclUpdateDataBuffer(buffer, other, 2 * size));
    EXPECT(aclGetDataBufferAddr(buffer) == other);
    EXPECT(aclGetDataBufferSizeV2(buffer) == 2 * size);
    CHECK_ERROR(aclDestroyDataBuffer(buffer));
    EXPECT(aclDestroyDataBuffer(nullptr) == ACL_ERROR_INVALID_PARAM);
    EXPECT(aclGetDataBufferAddr(nullptr) == nullptr);
    CHECK_ERROR(aclrtFree(dev));
    CHECK_ERROR(aclrtFree(other));
    INFO_LOG("data buffers: ok");
}

// As the error-handling quickstart: a failed call leaves its code for
// aclrtGetLastError, which hands it out once.
void ErrorQueries()
{
    (void)aclrtGetLastError(ACL_RT_THREAD_LEVEL);
    EXPECT(aclrtSetDevice(1000) == ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL) == ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT(aclrtGetLastError(ACL_RT_THREAD_LEVEL) == ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT(aclrtGetLastError(ACL_RT_THREAD_LEVEL) == ACL_SUCCESS);
    const char* msg = aclGetRecentErrMsg();
    EXPECT(msg != nullptr && strstr(msg, "EE1001") != nullptr);
    INFO_LOG("error queries: ok (%s)", msg);
}

// As the runtime-compatibility quickstart.
void Attributes(int32_t deviceId)
{
    const aclCannAttr* list = nullptr;
    size_t num = 0;
    CHECK_ERROR(aclGetCannAttributeList(&list, &num));
    INFO_LOG("CANN attribute count: %zu", num);
    EXPECT(num == 3);
    for (size_t i = 0; i < num; i++) {
        int32_t value = 0;
        CHECK_ERROR(aclGetCannAttribute(list[i], &value));
        INFO_LOG("CANN attribute %d support value: %d", static_cast<int>(list[i]), value);
        EXPECT(value == 1);
    }
    const char* soc = aclrtGetSocName();
    EXPECT(soc != nullptr);
    int32_t compatible = -1;
    CHECK_ERROR(aclrtCheckArchCompatibility(soc, &compatible));
    INFO_LOG("Architecture compatibility for %s: %d", soc, compatible);
    EXPECT(compatible == 1);
    CHECK_ERROR(aclrtCheckArchCompatibility("Ascend310P3", &compatible));
    EXPECT(compatible == 0);
    int32_t capability = -1;
    CHECK_ERROR(aclrtGetDeviceCapability(deviceId, ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV, &capability));
    EXPECT(capability == ACL_DEV_FEATURE_SUPPORT);
    EXPECT(aclrtGetDeviceCapability(64, ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV, &capability) ==
           ACL_ERROR_RT_INVALID_DEVICEID);
    INFO_LOG("attributes and capabilities: ok");
}

// As the context-query example: the current context's default stream and
// the compute resources of the thread.
void ContextQueries()
{
    aclrtContext context = nullptr;
    CHECK_ERROR(aclrtGetCurrentContext(&context));
    aclrtStream defaultStream = reinterpret_cast<aclrtStream>(1);
    CHECK_ERROR(aclrtCtxGetCurrentDefaultStream(&defaultStream));
    CHECK_ERROR(aclrtSynchronizeStream(defaultStream));
    uint32_t cube = 0;
    uint32_t vector = 0;
    CHECK_ERROR(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &cube));
    CHECK_ERROR(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_VECTOR_CORE, &vector));
    INFO_LOG("thread resources: %u cube cores, %u vector cores", cube, vector);
    EXPECT(cube > 0 && vector > 0);
    INFO_LOG("context queries: ok");
}

// As the device P2P example: enable access both ways, copy device 0 to
// device 1, read it back.
void PeerAccess()
{
    uint32_t count = 0;
    CHECK_ERROR(aclrtGetDeviceCount(&count));
    EXPECT(count >= 2);
    int32_t canAccessPeer = 0;
    CHECK_ERROR(aclrtDeviceCanAccessPeer(&canAccessPeer, 0, 1));
    EXPECT(canAccessPeer == 1);
    EXPECT(aclrtDeviceCanAccessPeer(&canAccessPeer, 0, 0) == ACL_ERROR_INVALID_PARAM);
    CHECK_ERROR(aclrtDeviceEnablePeerAccess(1, 0));
    const size_t size = 10;
    void* dev0 = nullptr;
    CHECK_ERROR(aclrtMalloc(&dev0, size, ACL_MEM_MALLOC_HUGE_FIRST_P2P));
    CHECK_ERROR(aclrtMemset(dev0, size, 42, size));
    CHECK_ERROR(aclrtSetDevice(1));
    CHECK_ERROR(aclrtDeviceEnablePeerAccess(0, 0));
    void* dev1 = nullptr;
    CHECK_ERROR(aclrtMalloc(&dev1, size, ACL_MEM_MALLOC_HUGE_FIRST_P2P));
    CHECK_ERROR(aclrtMemset(dev1, size, 0, size));
    CHECK_ERROR(aclrtMemcpy(dev1, size, dev0, size, ACL_MEMCPY_DEVICE_TO_DEVICE));
    char host[10] = {0};
    CHECK_ERROR(aclrtMemcpy(host, size, dev1, size, ACL_MEMCPY_DEVICE_TO_HOST));
    EXPECT(host[0] == 42 && host[9] == 42);
    CHECK_ERROR(aclrtSynchronizeDevice());
    CHECK_ERROR(aclrtDeviceDisablePeerAccess(0));
    CHECK_ERROR(aclrtFree(dev1));
    CHECK_ERROR(aclrtResetDeviceForce(1));
    CHECK_ERROR(aclrtSetDevice(0));
    CHECK_ERROR(aclrtDeviceDisablePeerAccess(1));
    CHECK_ERROR(aclrtFree(dev0));
    INFO_LOG("peer access: ok");
}

// As the stream-config-query example, and a stream made with a priority
// and flags.
void StreamConfig()
{
    aclrtStreamConfigHandle* config = aclrtCreateStreamConfigHandle();
    EXPECT(config != nullptr);
    const uint32_t flags = ACL_STREAM_FAST_LAUNCH;
    const uint32_t priority = 2;
    CHECK_ERROR(aclrtSetStreamConfigOpt(config, ACL_RT_STREAM_FLAG, &flags, sizeof(flags)));
    CHECK_ERROR(aclrtSetStreamConfigOpt(config, ACL_RT_STREAM_PRIORITY, &priority, sizeof(priority)));
    aclrtStream stream = nullptr;
    CHECK_ERROR(aclrtCreateStreamV2(&stream, config));
    int32_t streamId = -1;
    uint32_t gotFlags = 99;
    uint32_t gotPriority = 99;
    CHECK_ERROR(aclrtStreamGetId(stream, &streamId));
    CHECK_ERROR(aclrtStreamGetFlags(stream, &gotFlags));
    CHECK_ERROR(aclrtStreamGetPriority(stream, &gotPriority));
    INFO_LOG("Stream id: %d, flags: %u, priority: %u", streamId, gotFlags, gotPriority);
    EXPECT(streamId > 0 && gotFlags == flags && gotPriority == priority);
    CHECK_ERROR(aclrtSynchronizeStream(stream));
    CHECK_ERROR(aclrtDestroyStream(stream));
    CHECK_ERROR(aclrtDestroyStreamConfigHandle(config));

    aclrtStream fast = nullptr;
    CHECK_ERROR(aclrtCreateStreamWithConfig(&fast, 7, ACL_STREAM_FAST_LAUNCH | ACL_STREAM_FAST_SYNC));
    CHECK_ERROR(aclrtStreamGetPriority(fast, &gotPriority));
    EXPECT(gotPriority == 7);
    int32_t otherId = -1;
    CHECK_ERROR(aclrtStreamGetId(fast, &otherId));
    EXPECT(otherId > 0 && otherId != streamId);
    EXPECT(aclrtCreateStreamWithConfig(&stream, 8, 0) == ACL_ERROR_INVALID_PARAM);
    CHECK_ERROR(aclrtDestroyStreamForce(fast));
    INFO_LOG("stream configuration: ok");
}
} // namespace

int main()
{
    int32_t deviceId = 0;
    CHECK_ERROR(aclInit(nullptr));
    CHECK_ERROR(aclrtSetDevice(deviceId));
    aclrtStream stream = nullptr;
    CHECK_ERROR(aclrtCreateStream(&stream));
    DataBuffers();
    ErrorQueries();
    Attributes(deviceId);
    ContextQueries();
    PeerAccess();
    StreamConfig();
    CHECK_ERROR(aclrtDestroyStreamForce(stream));
    CHECK_ERROR(aclrtResetDeviceForce(deviceId));
    CHECK_ERROR(aclFinalize());
    printf("runtime_tail: ok\n");
    return 0;
}
