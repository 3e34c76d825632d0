// A host-only program in the style of CANN's runtime examples (CHECK_ERROR,
// INFO_LOG): the last runtime calls the host-only examples use, one
// function per area (stream memory operations first). It checks every
// result and exits non-zero on the first mismatch; the last line is
// "runtime_tail2: ok". C++11.
#include <cfloat>
#include <cmath>
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
uint64_t ReadWord(void* dev)
{
    uint64_t v = 0;
    CHECK_ERROR(aclrtMemcpy(&v, sizeof(v), dev, sizeof(v), ACL_MEMCPY_DEVICE_TO_HOST));
    return v;
}

// A producer stream signals a consumer stream through a word of device
// memory: the consumer waits for it, then fills its output.
void ValueWriteWait()
{
    void* flag = nullptr;
    void* out = nullptr;
    CHECK_ERROR(aclrtMalloc(&flag, sizeof(uint64_t), ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ERROR(aclrtMalloc(&out, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ERROR(aclrtMemset(flag, sizeof(uint64_t), 0, sizeof(uint64_t)));
    CHECK_ERROR(aclrtMemset(out, 64, 0, 64));
    aclrtStream producer = nullptr;
    aclrtStream consumer = nullptr;
    CHECK_ERROR(aclrtCreateStream(&producer));
    CHECK_ERROR(aclrtCreateStream(&consumer));
    CHECK_ERROR(aclrtValueWait(flag, 2, ACL_STREAM_WAIT_VALUE_GEQ, consumer));
    CHECK_ERROR(aclrtMemsetAsync(out, 64, 0x5a, 64, consumer));
    // Not yet signalled: the consumer is still blocked.
    EXPECT(aclrtSynchronizeStreamWithTimeout(consumer, 20) == ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    CHECK_ERROR(aclrtValueWrite(flag, 1, 0, producer));
    CHECK_ERROR(aclrtSynchronizeStream(producer));
    EXPECT(aclrtSynchronizeStreamWithTimeout(consumer, 20) == ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    CHECK_ERROR(aclrtValueWrite(flag, 2, 0, producer));
    CHECK_ERROR(aclrtSynchronizeStream(consumer));
    std::vector<uint8_t> host(64);
    CHECK_ERROR(aclrtMemcpy(host.data(), 64, out, 64, ACL_MEMCPY_DEVICE_TO_HOST));
    for (uint8_t b : host) {
        EXPECT(b == 0x5a);
    }
    EXPECT(ReadWord(flag) == 2);
    // The other modes, each released by the producer.
    CHECK_ERROR(aclrtValueWait(flag, 6, ACL_STREAM_WAIT_VALUE_EQ, consumer));
    CHECK_ERROR(aclrtValueWait(flag, 4, ACL_STREAM_WAIT_VALUE_AND, consumer));
    CHECK_ERROR(aclrtValueWrite(flag, 6, 0, producer));
    CHECK_ERROR(aclrtSynchronizeStream(consumer));
    CHECK_ERROR(aclrtValueWait(flag, 6, ACL_STREAM_WAIT_VALUE_NOR, consumer));
    CHECK_ERROR(aclrtValueWrite(flag, 0, 0, producer));
    CHECK_ERROR(aclrtSynchronizeStream(consumer));
    // Misuse: a status, never a crash.
    uint64_t onHost = 0;
    EXPECT(aclrtValueWrite(nullptr, 1, 0, producer) == ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtValueWrite(&onHost, 1, 0, producer) == ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtValueWrite(static_cast<uint8_t*>(flag) + 4, 1, 0, producer) == ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtValueWrite(flag, 1, 1, producer) == ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtValueWait(flag, 1, 4, consumer) == ACL_ERROR_RT_PARAM_INVALID);
    // A wait nobody satisfies: destroying the stream releases it.
    CHECK_ERROR(aclrtValueWait(flag, 99, ACL_STREAM_WAIT_VALUE_EQ, consumer));
    CHECK_ERROR(aclrtDestroyStreamForce(consumer));
    CHECK_ERROR(aclrtDestroyStreamForce(producer));
    CHECK_ERROR(aclrtFree(flag));
    CHECK_ERROR(aclrtFree(out));
    INFO_LOG("stream memory operations: ok");
}
// As the reduce example: dst = dst + src on a stream, float32 (the
// example's), then int32 MAX.
void ReduceTask()
{
    aclrtStream stream = nullptr;
    CHECK_ERROR(aclrtCreateStream(&stream));
    const float a[4] = {1.0f, 2.0f, 3.0f, 4.0f};
    const int32_t n[4] = {-5, 7, 100, -1};
    const int32_t m[4] = {3, 2, -100, -2};
    void* dst = nullptr;
    void* src = nullptr;
    CHECK_ERROR(aclrtMalloc(&dst, sizeof(a), ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ERROR(aclrtMalloc(&src, sizeof(a), ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ERROR(aclrtMemcpy(dst, sizeof(a), a, sizeof(a), ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_ERROR(aclrtMemcpy(src, sizeof(a), a, sizeof(a), ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_ERROR(aclrtReduceAsync(dst, src, sizeof(a), ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT, stream, nullptr));
    CHECK_ERROR(aclrtSynchronizeStream(stream));
    float out[4] = {0};
    CHECK_ERROR(aclrtMemcpy(out, sizeof(out), dst, sizeof(out), ACL_MEMCPY_DEVICE_TO_HOST));
    for (int i = 0; i < 4; i++) {
        INFO_LOG("Reduce SUM result[%d] = %f", i, out[i]);
        EXPECT(out[i] == 2.0f * a[i]);
    }
    CHECK_ERROR(aclrtMemcpy(dst, sizeof(n), n, sizeof(n), ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_ERROR(aclrtMemcpy(src, sizeof(m), m, sizeof(m), ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_ERROR(aclrtReduceAsync(dst, src, sizeof(n), ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX, ACL_INT32, stream, nullptr));
    CHECK_ERROR(aclrtSynchronizeStream(stream));
    int32_t got[4] = {0};
    CHECK_ERROR(aclrtMemcpy(got, sizeof(got), dst, sizeof(got), ACL_MEMCPY_DEVICE_TO_HOST));
    for (int i = 0; i < 4; i++) {
        EXPECT(got[i] == (n[i] > m[i] ? n[i] : m[i]));
    }
    // Misuse.
    int dummy = 0;
    EXPECT(aclrtReduceAsync(dst, src, 16, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT, stream, &dummy) ==
           ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtReduceAsync(dst, nullptr, 16, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT, stream, nullptr) ==
           ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtReduceAsync(dst, src, 6, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT, stream, nullptr) ==
           ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtReduceAsync(dst, src, 16, ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL, ACL_FLOAT, stream, nullptr) ==
           ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    CHECK_ERROR(aclrtFree(dst));
    CHECK_ERROR(aclrtFree(src));
    CHECK_ERROR(aclrtDestroyStreamForce(stream));
    INFO_LOG("reduce task: ok");
}
// As the random-number example: a task info with immediate parameters,
// a 16-byte counter in device memory.
aclError UniformInt32(int32_t lo, int32_t hi, uint64_t seed, uint64_t num, void* counter, void* out,
                      aclrtStream stream)
{
    aclrtRandomNumTaskInfo info;
    memset(&info, 0, sizeof(info));
    info.dataType = ACL_INT32;
    info.randomNumFuncParaInfo.funcType = ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS;
    info.randomResultAddr = out;
    info.randomCounterAddr = counter;
    memcpy(info.randomNumFuncParaInfo.paramInfo.uniformDisInfo.min.valueOrAddr, &lo, sizeof(lo));
    info.randomNumFuncParaInfo.paramInfo.uniformDisInfo.min.size = sizeof(lo);
    memcpy(info.randomNumFuncParaInfo.paramInfo.uniformDisInfo.max.valueOrAddr, &hi, sizeof(hi));
    info.randomNumFuncParaInfo.paramInfo.uniformDisInfo.max.size = sizeof(hi);
    memcpy(info.randomSeed.valueOrAddr, &seed, sizeof(seed));
    info.randomSeed.size = sizeof(seed);
    memcpy(info.randomNum.valueOrAddr, &num, sizeof(num));
    info.randomNum.size = sizeof(num);
    return aclrtRandomNumAsync(&info, stream, nullptr);
}

void RandomTask()
{
    aclrtStream stream = nullptr;
    CHECK_ERROR(aclrtCreateStream(&stream));
    const uint64_t num = 128;
    void* out = nullptr;
    void* counter = nullptr;
    CHECK_ERROR(aclrtMalloc(&out, num * sizeof(int32_t), ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ERROR(aclrtMalloc(&counter, 16, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ERROR(aclrtMemset(counter, 16, 0, 16));
    std::vector<int32_t> first(num);
    std::vector<int32_t> again(num);
    CHECK_ERROR(UniformInt32(1, 100, 0, num, counter, out, stream));
    CHECK_ERROR(aclrtSynchronizeStream(stream));
    CHECK_ERROR(aclrtMemcpy(first.data(), num * 4, out, num * 4, ACL_MEMCPY_DEVICE_TO_HOST));
    for (uint64_t i = 0; i < num; i++) {
        EXPECT(first[i] >= 1 && first[i] < 100);
    }
    INFO_LOG("Random result[0..3] = %d %d %d", first[0], first[1], first[2]);
    // The same seed and counter: the same numbers.
    CHECK_ERROR(UniformInt32(1, 100, 0, num, counter, out, stream));
    CHECK_ERROR(aclrtSynchronizeStream(stream));
    CHECK_ERROR(aclrtMemcpy(again.data(), num * 4, out, num * 4, ACL_MEMCPY_DEVICE_TO_HOST));
    EXPECT(first == again);
    EXPECT(aclrtRandomNumAsync(nullptr, stream, nullptr) == ACL_ERROR_INVALID_PARAM);
    EXPECT(UniformInt32(1, 100, 0, num, nullptr, out, stream) == ACL_ERROR_INVALID_PARAM);
    EXPECT(UniformInt32(1, 100, 0, 4096, counter, out, stream) == ACL_ERROR_RT_PARAM_INVALID);
    CHECK_ERROR(aclrtFree(out));
    CHECK_ERROR(aclrtFree(counter));
    CHECK_ERROR(aclrtDestroyStreamForce(stream));
    INFO_LOG("random task: ok");
}
// A user allocator, as a framework registers one on its stream.
struct MyAllocator {
    int allocs;
};
void* MyAlloc(aclrtAllocator allocator, size_t size)
{
    static_cast<MyAllocator*>(allocator)->allocs++;
    return malloc(size);
}
void MyFree(aclrtAllocator allocator, aclrtAllocatorBlock block)
{
    (void)allocator;
    free(block);
}
void* MyBlockAddr(aclrtAllocatorBlock block)
{
    return block;
}

void RegisteredAllocator()
{
    aclrtStream stream = nullptr;
    CHECK_ERROR(aclrtCreateStream(&stream));
    MyAllocator mine = {0};
    aclrtAllocatorDesc desc = aclrtAllocatorCreateDesc();
    EXPECT(desc != nullptr);
    CHECK_ERROR(aclrtAllocatorSetObjToDesc(desc, &mine));
    CHECK_ERROR(aclrtAllocatorSetAllocFuncToDesc(desc, MyAlloc));
    CHECK_ERROR(aclrtAllocatorSetFreeFuncToDesc(desc, MyFree));
    EXPECT(aclrtAllocatorRegister(stream, desc) == ACL_ERROR_INVALID_PARAM); // no block-address function yet
    CHECK_ERROR(aclrtAllocatorSetGetAddrFromBlockFuncToDesc(desc, MyBlockAddr));
    CHECK_ERROR(aclrtAllocatorRegister(stream, desc));
    aclrtAllocatorDesc gotDesc = nullptr;
    aclrtAllocator gotObj = nullptr;
    aclrtAllocatorAllocFunc gotAlloc = nullptr;
    aclrtAllocatorFreeFunc gotFree = nullptr;
    aclrtAllocatorAllocAdviseFunc gotAdvise = nullptr;
    aclrtAllocatorGetAddrFromBlockFunc gotAddr = nullptr;
    CHECK_ERROR(aclrtAllocatorGetByStream(stream, &gotDesc, &gotObj, &gotAlloc, &gotFree, &gotAdvise, &gotAddr));
    EXPECT(gotDesc == desc && gotObj == &mine && gotAlloc == MyAlloc && gotFree == MyFree);
    EXPECT(gotAdvise == nullptr && gotAddr == MyBlockAddr);
    // The functions handed back are the user's own.
    void* block = gotAlloc(gotObj, 64);
    EXPECT(block != nullptr && gotAddr(block) == block && mine.allocs == 1);
    gotFree(gotObj, block);
    CHECK_ERROR(aclrtAllocatorUnregister(stream));
    EXPECT(aclrtAllocatorGetByStream(stream, &gotDesc, nullptr, nullptr, nullptr, nullptr, nullptr) ==
           ACL_ERROR_INVALID_PARAM);
    CHECK_ERROR(aclrtAllocatorDestroyDesc(desc));
    CHECK_ERROR(aclrtDestroyStreamForce(stream));
    INFO_LOG("registered allocator: ok");
}
// Saturation and overflow, as a training framework checks a step: the
// status after a float task that overflows, then reset.
uint64_t OverflowStatus(aclrtStream stream, void* statusDev)
{
    CHECK_ERROR(aclrtGetOverflowStatus(statusDev, 64, stream));
    CHECK_ERROR(aclrtSynchronizeStream(stream));
    uint64_t status[8] = {0};
    CHECK_ERROR(aclrtMemcpy(status, sizeof(status), statusDev, 64, ACL_MEMCPY_DEVICE_TO_HOST));
    return status[0];
}

void SaturationAndOverflow()
{
    aclrtStream stream = nullptr;
    CHECK_ERROR(aclrtCreateStream(&stream));
    aclrtFloatOverflowMode mode = ACL_RT_OVERFLOW_MODE_UNDEF;
    CHECK_ERROR(aclrtGetDeviceSatMode(&mode));
    EXPECT(mode == ACL_RT_OVERFLOW_MODE_INFNAN);
    uint32_t flag = 0;
    CHECK_ERROR(aclrtSetStreamOverflowSwitch(stream, 1));
    CHECK_ERROR(aclrtGetStreamOverflowSwitch(stream, &flag));
    EXPECT(flag == 1);
    void* status = nullptr;
    void* a = nullptr;
    void* b = nullptr;
    CHECK_ERROR(aclrtMalloc(&status, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ERROR(aclrtMalloc(&a, 4, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ERROR(aclrtMalloc(&b, 4, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ERROR(aclrtResetOverflowStatus(stream));
    EXPECT(OverflowStatus(stream, status) == 0);
    const float big = 3.0e38f;
    CHECK_ERROR(aclrtMemcpy(a, 4, &big, 4, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_ERROR(aclrtMemcpy(b, 4, &big, 4, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_ERROR(aclrtReduceAsync(a, b, 4, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT, stream, nullptr));
    EXPECT(OverflowStatus(stream, status) == 1);
    float out = 0;
    CHECK_ERROR(aclrtMemcpy(&out, 4, a, 4, ACL_MEMCPY_DEVICE_TO_HOST));
    EXPECT(std::isinf(out) && out > 0); // inf in INF_NAN mode
    CHECK_ERROR(aclrtResetOverflowStatus(stream));
    EXPECT(OverflowStatus(stream, status) == 0);
    // Saturation: the sum is clamped to FLT_MAX.
    CHECK_ERROR(aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_SATURATION));
    CHECK_ERROR(aclrtMemcpy(a, 4, &big, 4, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_ERROR(aclrtReduceAsync(a, b, 4, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT, stream, nullptr));
    EXPECT(OverflowStatus(stream, status) == 1);
    CHECK_ERROR(aclrtMemcpy(&out, 4, a, 4, ACL_MEMCPY_DEVICE_TO_HOST));
    EXPECT(out == FLT_MAX);
    EXPECT(aclrtGetOverflowStatus(status, 32, stream) == ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_UNDEF) == ACL_ERROR_INVALID_PARAM);
    CHECK_ERROR(aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_INFNAN));
    CHECK_ERROR(aclrtFree(status));
    CHECK_ERROR(aclrtFree(a));
    CHECK_ERROR(aclrtFree(b));
    CHECK_ERROR(aclrtDestroyStreamForce(stream));
    INFO_LOG("saturation and overflow: ok");
}
// As CANN's P2P example: aclrtMemset clears a host buffer too (CANN decides
// by the address), plain or pinned.
void MemsetHost()
{
    std::vector<uint8_t> plain(256, 1);
    CHECK_ERROR(aclrtMemset(plain.data(), plain.size(), 0, plain.size()));
    for (uint8_t b : plain) {
        EXPECT(b == 0);
    }
    void* pinned = nullptr;
    CHECK_ERROR(aclrtMallocHost(&pinned, 128));
    CHECK_ERROR(aclrtMemset(pinned, 128, 0x3c, 128));
    for (int i = 0; i < 128; i++) {
        EXPECT(static_cast<uint8_t*>(pinned)[i] == 0x3c);
    }
    EXPECT(aclrtMemset(pinned, 256, 0, 256) == ACL_ERROR_RT_PARAM_INVALID); // past its block
    CHECK_ERROR(aclrtFreeHost(pinned));
    EXPECT(aclrtMemset(nullptr, 8, 0, 8) == ACL_ERROR_RT_PARAM_INVALID);
    INFO_LOG("aclrtMemset on host memory: ok");
}
} // namespace

int main()
{
    int32_t deviceId = 0;
    CHECK_ERROR(aclInit(nullptr));
    CHECK_ERROR(aclrtSetDevice(deviceId));
    ValueWriteWait();
    ReduceTask();
    RandomTask();
    RegisteredAllocator();
    SaturationAndOverflow();
    MemsetHost();
    CHECK_ERROR(aclrtResetDeviceForce(deviceId));
    CHECK_ERROR(aclFinalize());
    printf("runtime_tail2: ok\n");
    return 0;
}
