// aclnnAdd and aclnnInplaceAdd in the style of CANN's sample: a 4x2 float
// tensor plus alpha times a broadcast row, into a float16 out (a promoted
// float result cast once more), then the in-place form on self with an
// int32 alpha. Expected values computed here as docs/ops.md §8 defines them.
#include <cmath>
#include <cstring>
#include <iostream>
#include <vector>
#include "acl/acl.h"
#include "aclnnop/aclnn_add.h"
#include "common.h"

// One float16 bit pattern to float (exact; no NaN in this sample).
static float HalfToFloat(uint16_t h)
{
    int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    float v = e == 0 ? std::ldexp((float)m, -24) : std::ldexp((float)(m | 0x400), e - 25);
    return (h & 0x8000) ? -v : v;
}

static int RunPhase2(uint64_t workspaceSize, aclOpExecutor* executor, aclrtStream stream, bool inplace)
{
    void* workspaceAddr = nullptr;
    if (workspaceSize > 0) {
        auto ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
    }
    auto ret = inplace ? aclnnInplaceAdd(workspaceAddr, workspaceSize, executor, stream)
                       : aclnnAdd(workspaceAddr, workspaceSize, executor, stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnAdd failed. ERROR: %d\n", ret); return ret);
    ret = aclrtSynchronizeStream(stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret); return ret);
    if (workspaceAddr != nullptr) {
        aclrtFree(workspaceAddr);
    }
    return 0;
}

int main()
{
    int32_t deviceId = 0;
    aclrtStream stream;
    auto ret = Init(deviceId, &stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

    std::vector<int64_t> selfShape = {4, 2}, otherShape = {2}, outShape = {4, 2};
    void *selfDeviceAddr = nullptr, *otherDeviceAddr = nullptr, *outDeviceAddr = nullptr;
    aclTensor *self = nullptr, *other = nullptr, *out = nullptr;
    std::vector<float> selfHostData = {0, 1, 2, 3, 4, 5, 6, 7};
    std::vector<float> otherHostData = {0.5f, -3};
    std::vector<uint16_t> outHostData(8, 0);
    double alphaValue = 1.25;
    ret = CreateAclTensor(selfHostData, selfShape, &selfDeviceAddr, aclDataType::ACL_FLOAT, &self);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(otherHostData, otherShape, &otherDeviceAddr, aclDataType::ACL_FLOAT, &other);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(outHostData, outShape, &outDeviceAddr, aclDataType::ACL_FLOAT16, &out);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    aclScalar* alpha = aclCreateScalar(&alphaValue, aclDataType::ACL_DOUBLE);
    CHECK_RET(alpha != nullptr, return 1);

    uint64_t workspaceSize = 0;
    aclOpExecutor* executor;
    ret = aclnnAddGetWorkspaceSize(self, other, alpha, out, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnAddGetWorkspaceSize failed. ERROR: %d\n", ret); return ret);
    ret = RunPhase2(workspaceSize, executor, stream, false);
    CHECK_RET(ret == 0, return ret);

    std::vector<uint16_t> resultData(8, 0);
    ret = ReadBack(outDeviceAddr, resultData);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("copy result failed. ERROR: %d\n", ret); return ret);
    for (size_t i = 0; i < resultData.size(); i++) {
        // Every value here is exact in float16: self + 1.25 * other.
        float want = selfHostData[i] + 1.25f * otherHostData[i % 2];
        float got = HalfToFloat(resultData[i]);
        LOG_PRINT("result[%zu] is: %f\n", i, got);
        CHECK_RET(got == want, LOG_PRINT("result[%zu] should be %f\n", i, want); return 1);
    }

    // In place: self = self + 2 * other (an INT64 alpha casts to FLOAT).
    int64_t twoValue = 2;
    aclScalar* two = aclCreateScalar(&twoValue, aclDataType::ACL_INT64);
    ret = aclnnInplaceAddGetWorkspaceSize(self, other, two, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnInplaceAddGetWorkspaceSize failed. ERROR: %d\n", ret); return ret);
    ret = RunPhase2(workspaceSize, executor, stream, true);
    CHECK_RET(ret == 0, return ret);
    std::vector<float> selfResult(8, 0);
    ret = ReadBack(selfDeviceAddr, selfResult);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    for (size_t i = 0; i < selfResult.size(); i++) {
        float want = selfHostData[i] + 2 * otherHostData[i % 2];
        CHECK_RET(selfResult[i] == want, LOG_PRINT("in place [%zu] is %f, should be %f\n", i, selfResult[i], want);
                  return 1);
    }

    // Rules the first phase enforces: a float alpha with int32 tensors, and
    // a float result into an int32 out.
    std::vector<int32_t> intHost = {1, 2};
    void* intDeviceAddr = nullptr;
    aclTensor* ints = nullptr;
    ret = CreateAclTensor(intHost, otherShape, &intDeviceAddr, aclDataType::ACL_INT32, &ints);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    aclOpExecutor* unused = nullptr;
    ret = aclnnAddGetWorkspaceSize(ints, ints, alpha, ints, &workspaceSize, &unused);
    CHECK_RET(ret == 161002 && unused == nullptr, LOG_PRINT("float alpha into int32: %d\n", ret); return 1);
    ret = aclnnAddGetWorkspaceSize(other, other, two, ints, &workspaceSize, &unused);
    CHECK_RET(ret == 161002, LOG_PRINT("float into int32 out: %d\n", ret); return 1);
    ret = aclnnAddGetWorkspaceSize(nullptr, other, two, out, &workspaceSize, &unused);
    CHECK_RET(ret == 161001, LOG_PRINT("null self: %d\n", ret); return 1);

    aclDestroyTensor(self);
    aclDestroyTensor(other);
    aclDestroyTensor(out);
    aclDestroyTensor(ints);
    aclDestroyScalar(alpha);
    aclDestroyScalar(two);
    aclrtFree(selfDeviceAddr);
    aclrtFree(otherDeviceAddr);
    aclrtFree(outDeviceAddr);
    aclrtFree(intDeviceAddr);
    aclrtDestroyStream(stream);
    aclrtResetDevice(deviceId);
    aclFinalize();
    LOG_PRINT("add: ok\n");
    return 0;
}
