// A host-only program in the style of CANN's memory examples (CHECK_ERROR,
// INFO_LOG): 32-byte aligned allocation, 32-bit fills, a copy through
// device-resident base addresses, pitched copies, device attributes, batch
// copies, memcpy descriptors, configured allocation and pointer
// attributes, each with a misuse. It checks every result and exits non-zero on the
// first mismatch; the last line is "runtime_memory: ok". C++11.
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
// Two payloads in 32-byte aligned device buffers, read back exactly.
void AlignedAllocation()
{
    const char payload[] = "thirty-seven bytes of payload here!!";
    void* dev = nullptr;
    CHECK_ERROR(aclrtMallocAlign32(&dev, sizeof(payload), ACL_MEM_MALLOC_HUGE_FIRST));
    EXPECT(reinterpret_cast<uintptr_t>(dev) % 32 == 0);
    CHECK_ERROR(aclrtMemcpy(dev, sizeof(payload), payload, sizeof(payload), ACL_MEMCPY_HOST_TO_DEVICE));
    char back[sizeof(payload)] = {0};
    CHECK_ERROR(aclrtMemcpy(back, sizeof(back), dev, sizeof(back), ACL_MEMCPY_DEVICE_TO_HOST));
    EXPECT(std::memcmp(back, payload, sizeof(payload)) == 0);
    // Rounded to 64 bytes, no more: 96 bytes do not fit.
    std::vector<char> big(96, 0);
    EXPECT(aclrtMemcpy(dev, big.size(), big.data(), big.size(), ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS);
    void* none = nullptr;
    EXPECT(aclrtMallocAlign32(&none, 0, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_ERROR_INVALID_PARAM);
    CHECK_ERROR(aclrtFree(dev));
    INFO_LOG("aligned allocation: ok");
}

// A sentinel table, then a slice copied through base addresses stored in
// device memory, as the guarded-result-slice example does.
void GuardedSlice(aclrtStream stream)
{
    const size_t n = 16, bytes = n * sizeof(uint32_t);
    uint32_t* host = nullptr;
    CHECK_ERROR(aclrtMallocHost(reinterpret_cast<void**>(&host), bytes));
    CHECK_ERROR(aclrtMemsetD32(host, bytes, 0xDEADBEEFU, n));
    for (size_t i = 0; i < n; ++i) {
        EXPECT(host[i] == 0xDEADBEEFU);
    }
    void *src = nullptr, *dst = nullptr, *srcBase = nullptr, *dstBase = nullptr;
    CHECK_ERROR(aclrtMalloc(&src, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ERROR(aclrtMalloc(&dst, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ERROR(aclrtMalloc(&srcBase, sizeof(void*), ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ERROR(aclrtMalloc(&dstBase, sizeof(void*), ACL_MEM_MALLOC_HUGE_FIRST));
    std::vector<uint32_t> values(n);
    for (size_t i = 0; i < n; ++i) {
        values[i] = 0x1000U + static_cast<uint32_t>(i);
    }
    CHECK_ERROR(aclrtMemcpy(src, bytes, values.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_ERROR(aclrtMemcpy(srcBase, sizeof(void*), &src, sizeof(void*), ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_ERROR(aclrtMemcpy(dstBase, sizeof(void*), &dst, sizeof(void*), ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_ERROR(aclrtMemsetD32Async(dst, bytes, 0xDEADBEEFU, n, stream));
    CHECK_ERROR(aclrtMemcpyAsyncWithOffset(reinterpret_cast<void**>(dstBase), bytes, 5 * sizeof(uint32_t),
                                           const_cast<const void**>(reinterpret_cast<void**>(srcBase)),
                                           6 * sizeof(uint32_t), 3 * sizeof(uint32_t),
                                           ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, stream));
    CHECK_ERROR(aclrtSynchronizeStream(stream));
    CHECK_ERROR(aclrtMemcpy(host, bytes, dst, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
    for (size_t i = 0; i < n; ++i) {
        uint32_t want = (i >= 5 && i < 11) ? values[i - 2] : 0xDEADBEEFU;
        EXPECT(host[i] == want);
    }
    // Misuse: more values than memSize holds; another copy kind.
    EXPECT(aclrtMemsetD32(dst, bytes - 1, 0, n) == ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtMemcpyAsyncWithOffset(reinterpret_cast<void**>(dstBase), bytes, 0,
                                      const_cast<const void**>(reinterpret_cast<void**>(srcBase)), 4, 0,
                                      ACL_MEMCPY_DEVICE_TO_DEVICE, stream) == ACL_ERROR_INVALID_PARAM);
    CHECK_ERROR(aclrtFree(src));
    CHECK_ERROR(aclrtFree(dst));
    CHECK_ERROR(aclrtFree(srcBase));
    CHECK_ERROR(aclrtFree(dstBase));
    CHECK_ERROR(aclrtFreeHost(host));
    INFO_LOG("guarded slice: ok");
}

// A region of interest of a host image staged to the device and back, as
// the watershed staging scenario does.
void PitchedCopies(aclrtStream stream)
{
    int64_t total = 0;
    CHECK_ERROR(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE, &total));
    size_t freeBytes = 0, totalBytes = 0;
    CHECK_ERROR(aclrtGetMemInfo(ACL_HBM_MEM, &freeBytes, &totalBytes));
    EXPECT(total == static_cast<int64_t>(totalBytes));
    int64_t cores = 0;
    CHECK_ERROR(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_AICORE_CORE_NUM, &cores));
    EXPECT(cores > 0);
    EXPECT(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_AICORE_CORE_NUM, nullptr) == ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtGetDeviceInfo(64, ACL_DEV_ATTR_AICORE_CORE_NUM, &cores) == ACL_ERROR_RT_INVALID_DEVICEID);

    const size_t width = 12, height = 5, imagePitch = 20, devPitch = 16;
    std::vector<uint8_t> image(imagePitch * height);
    for (size_t i = 0; i < image.size(); ++i) {
        image[i] = static_cast<uint8_t>(i);
    }
    uint8_t* pinned = nullptr;
    CHECK_ERROR(aclrtMallocHost(reinterpret_cast<void**>(&pinned), image.size()));
    std::memcpy(pinned, image.data(), image.size());
    void *dev = nullptr, *dev2 = nullptr;
    CHECK_ERROR(aclrtMalloc(&dev, devPitch * height, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ERROR(aclrtMalloc(&dev2, devPitch * height, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ERROR(aclrtMemcpy2dAsync(dev, devPitch, pinned, imagePitch, width, height, ACL_MEMCPY_HOST_TO_DEVICE,
                                   stream));
    CHECK_ERROR(aclrtMemcpy2dAsync(dev2, devPitch, dev, devPitch, width, height, ACL_MEMCPY_DEVICE_TO_DEVICE,
                                   stream));
    CHECK_ERROR(aclrtSynchronizeStream(stream));
    std::vector<uint8_t> roi(width * height, 0);
    CHECK_ERROR(aclrtMemcpy2d(roi.data(), width, dev2, devPitch, width, height, ACL_MEMCPY_DEVICE_TO_HOST));
    for (size_t r = 0; r < height; ++r) {
        EXPECT(std::memcmp(&roi[r * width], &image[r * imagePitch], width) == 0);
    }
    // Misuse: width above the pitch; a kind 2d does not copy.
    EXPECT(aclrtMemcpy2d(dev, 8, image.data(), imagePitch, width, height, ACL_MEMCPY_HOST_TO_DEVICE) ==
           ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtMemcpy2d(dev2, devPitch, dev, devPitch, width, height, ACL_MEMCPY_DEVICE_TO_DEVICE) ==
           ACL_ERROR_INVALID_PARAM);
    CHECK_ERROR(aclrtFree(dev));
    CHECK_ERROR(aclrtFree(dev2));
    CHECK_ERROR(aclrtFreeHost(pinned));
    INFO_LOG("pitched copies: ok");
}

// Tensors of three sizes to the device and back in one batch each way, as
// the batch round-trip example does; then a descriptor copy.
void BatchesAndDescriptors(aclrtStream stream)
{
    const size_t sizes[3] = {16, 28, 44};
    void* dev[3] = {nullptr, nullptr, nullptr};
    std::vector<std::vector<uint8_t> > in(3), out(3);
    for (int i = 0; i < 3; ++i) {
        CHECK_ERROR(aclrtMalloc(&dev[i], sizes[i], ACL_MEM_MALLOC_HUGE_FIRST));
        in[i].assign(sizes[i], static_cast<uint8_t>(i + 1));
        out[i].assign(sizes[i], 0);
    }
    aclrtMemcpyBatchAttr h2d = {};
    h2d.srcLoc.type = ACL_MEM_LOCATION_TYPE_HOST;
    h2d.dstLoc.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    aclrtMemcpyBatchAttr d2h = {};
    d2h.srcLoc.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    d2h.dstLoc.type = ACL_MEM_LOCATION_TYPE_HOST;
    void* dsts[3] = {dev[0], dev[1], dev[2]};
    void* srcs[3] = {in[0].data(), in[1].data(), in[2].data()};
    size_t counts[3] = {sizes[0], sizes[1], sizes[2]};
    size_t attrIndex = 0;
    size_t failIndex = 0;
    CHECK_ERROR(aclrtMemcpyBatch(dsts, counts, srcs, counts, 3, &h2d, &attrIndex, 1, &failIndex));
    EXPECT(failIndex == SIZE_MAX);
    void* hostDsts[3] = {out[0].data(), out[1].data(), out[2].data()};
    CHECK_ERROR(aclrtMemcpyBatchAsyncV2(hostDsts, counts, dev, counts, 3, &d2h, &attrIndex, 1, stream));
    CHECK_ERROR(aclrtSynchronizeStream(stream));
    for (int i = 0; i < 3; ++i) {
        EXPECT(out[i] == in[i]);
    }
    // Misuse: the second copy's destMax is too small.
    size_t small[3] = {sizes[0], 4, sizes[2]};
    EXPECT(aclrtMemcpyBatch(dsts, small, srcs, counts, 3, &h2d, &attrIndex, 1, &failIndex) ==
           ACL_ERROR_INVALID_PARAM);
    EXPECT(failIndex == 1);

    size_t descSize = 0;
    CHECK_ERROR(aclrtGetMemcpyDescSize(ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, &descSize));
    void* desc = nullptr;
    CHECK_ERROR(aclrtMalloc(&desc, descSize, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ERROR(aclrtSetMemcpyDesc(desc, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, dev[2], dev[1], sizes[1], nullptr));
    CHECK_ERROR(aclrtMemcpyAsyncWithDesc(desc, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, stream));
    CHECK_ERROR(aclrtSynchronizeStream(stream));
    CHECK_ERROR(aclrtMemcpy(out[1].data(), sizes[1], dev[1], sizes[1], ACL_MEMCPY_DEVICE_TO_HOST));
    EXPECT(out[1] == std::vector<uint8_t>(sizes[1], 3));
    EXPECT(aclrtSetMemcpyDesc(desc, ACL_MEMCPY_DEVICE_TO_DEVICE, dev[2], dev[1], 4, nullptr) ==
           ACL_ERROR_INVALID_PARAM);
    CHECK_ERROR(aclrtFree(desc));
    for (int i = 0; i < 3; ++i) {
        CHECK_ERROR(aclrtFree(dev[i]));
    }
    INFO_LOG("batches and descriptors: ok");
}

// Configured allocations, checked by type and location, freed after the
// work that uses them, as the configured-allocation example does.
void ConfiguredAllocation(aclrtStream stream)
{
    aclrtMallocAttribute attribute = {};
    attribute.attr = ACL_RT_MEM_ATTR_MODULE_ID;
    attribute.value.moduleId = 7;
    aclrtMallocConfig config = {&attribute, 1};
    void *host = nullptr, *dev = nullptr, *cached = nullptr;
    CHECK_ERROR(aclrtMallocHostWithCfg(&host, 256, &config));
    CHECK_ERROR(aclrtMallocWithCfg(&dev, 256, ACL_MEM_MALLOC_NORMAL_ONLY, &config));
    CHECK_ERROR(aclrtMallocCached(&cached, 256, ACL_MEM_MALLOC_NORMAL_ONLY));
    void* both[2] = {dev, cached};
    uint32_t matched = 0;
    CHECK_ERROR(aclrtCheckMemType(both, 2, ACL_RT_MEM_TYPE_DEV, &matched, 0));
    EXPECT(matched == 1);
    void* mixed[2] = {dev, host};
    CHECK_ERROR(aclrtCheckMemType(mixed, 2, ACL_RT_MEM_TYPE_DEV, &matched, 0));
    EXPECT(matched == 0);
    aclrtPtrAttributes attrs = {};
    CHECK_ERROR(aclrtPointerGetAttributes(dev, &attrs));
    EXPECT(attrs.location.type == ACL_MEM_LOCATION_TYPE_DEVICE && attrs.location.id == 0);
    CHECK_ERROR(aclrtPointerGetAttributes(host, &attrs));
    EXPECT(attrs.location.type == ACL_MEM_LOCATION_TYPE_HOST);
    EXPECT(aclrtPointerGetAttributes(nullptr, &attrs) == ACL_ERROR_INVALID_PARAM);
    std::memset(host, 9, 256);
    CHECK_ERROR(aclrtMemcpyAsync(dev, 256, host, 256, ACL_MEMCPY_HOST_TO_DEVICE, stream));
    CHECK_ERROR(aclrtMemcpyAsync(cached, 256, dev, 256, ACL_MEMCPY_DEVICE_TO_DEVICE, stream));
    CHECK_ERROR(aclrtFreeWithDevSync(dev));
    std::vector<uint8_t> back(256, 0);
    CHECK_ERROR(aclrtMemcpy(back.data(), 256, cached, 256, ACL_MEMCPY_DEVICE_TO_HOST));
    EXPECT(back == std::vector<uint8_t>(256, 9));
    EXPECT(aclrtFreeWithDevSync(dev) == ACL_ERROR_RT_MEMORY_FREE);
    CHECK_ERROR(aclrtFreeWithDevSync(cached));
    CHECK_ERROR(aclrtFreeHostWithDevSync(host));
    EXPECT(aclrtFreeHostWithDevSync(host) == ACL_ERROR_INVALID_PARAM);
    INFO_LOG("configured allocation: ok");
}
}  // namespace

int main()
{
    CHECK_ERROR(aclInit(nullptr));
    CHECK_ERROR(aclrtSetDevice(0));
    aclrtStream stream = nullptr;
    CHECK_ERROR(aclrtCreateStream(&stream));
    AlignedAllocation();
    GuardedSlice(stream);
    PitchedCopies(stream);
    BatchesAndDescriptors(stream);
    ConfiguredAllocation(stream);
    CHECK_ERROR(aclrtDestroyStream(stream));
    CHECK_ERROR(aclrtResetDevice(0));
    CHECK_ERROR(aclFinalize());
    printf("runtime_memory: ok\n");
    return 0;
}
