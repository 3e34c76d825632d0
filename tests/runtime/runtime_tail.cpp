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
} // namespace

int main()
{
    int32_t deviceId = 0;
    CHECK_ERROR(aclInit(nullptr));
    CHECK_ERROR(aclrtSetDevice(deviceId));
    aclrtStream stream = nullptr;
    CHECK_ERROR(aclrtCreateStream(&stream));
    DataBuffers();
    CHECK_ERROR(aclrtDestroyStreamForce(stream));
    CHECK_ERROR(aclrtResetDeviceForce(deviceId));
    CHECK_ERROR(aclFinalize());
    printf("runtime_tail: ok\n");
    return 0;
}
