// aclnnCast in the style of CANN's sample: a float32 4x2 tensor cast to
// double (CANN's sample), float32 to int8 through a transposed view of
// self (truncation, saturation, NaN to 0: docs/ops.md §14), and the first
// phase's rules: out of another shape, out's dtype differing from dtype.
#include <cmath>
#include <iostream>
#include <vector>
#include "acl/acl.h"
#include "aclnnop/aclnn_cast.h"
#include "common.h"

static int RunCast(const aclTensor* self, aclDataType dtype, aclTensor* out, aclrtStream stream)
{
    uint64_t workspaceSize = 0;
    aclOpExecutor* executor;
    auto ret = aclnnCastGetWorkspaceSize(self, dtype, out, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnCastGetWorkspaceSize failed. ERROR: %d\n", ret); return ret);
    void* workspaceAddr = nullptr;
    if (workspaceSize > 0) {
        ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
    }
    ret = aclnnCast(workspaceAddr, workspaceSize, executor, stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnCast failed. ERROR: %d\n", ret); return ret);
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

    // 1. CANN's sample: float32 to double.
    std::vector<int64_t> selfShape = {4, 2}, outShape = {4, 2};
    void *selfDeviceAddr = nullptr, *outDeviceAddr = nullptr;
    aclTensor *self = nullptr, *out = nullptr;
    std::vector<float> selfHostData = {0.1, 1.1, 2.1, 3.1, 4.1, 5.1, 6.1, 7.1};
    std::vector<double> outHostData(8, 0.0);
    ret = CreateAclTensor(selfHostData, selfShape, &selfDeviceAddr, aclDataType::ACL_FLOAT, &self);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(outHostData, outShape, &outDeviceAddr, aclDataType::ACL_DOUBLE, &out);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = RunCast(self, aclDataType::ACL_DOUBLE, out, stream);
    CHECK_RET(ret == 0, return ret);
    std::vector<double> resultData(8, 0);
    ret = ReadBack(outDeviceAddr, resultData);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("copy result failed. ERROR: %d\n", ret); return ret);
    for (size_t i = 0; i < resultData.size(); i++) {
        LOG_PRINT("result[%zu] is: %f\n", i, resultData[i]);
        CHECK_RET(resultData[i] == (double)selfHostData[i], LOG_PRINT("result[%zu] is not exact\n", i); return 1);
    }

    // 2. float32 to int8 through a transposed view of a 2x3 self.
    std::vector<int64_t> srcShape = {2, 3};
    std::vector<float> srcHost = {2.75f, -2.75f, 1000.0f, -1000.0f, NAN, INFINITY};
    void* srcDeviceAddr = nullptr;
    aclTensor* src = nullptr;
    ret = CreateAclTensor(srcHost, srcShape, &srcDeviceAddr, aclDataType::ACL_FLOAT, &src);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    std::vector<int64_t> tShape = {3, 2}, tStrides = {1, 3}, storage = {6};
    aclTensor* srcT = aclCreateTensor(tShape.data(), tShape.size(), aclDataType::ACL_FLOAT, tStrides.data(), 0,
                                      aclFormat::ACL_FORMAT_ND, storage.data(), storage.size(), srcDeviceAddr);
    std::vector<int8_t> bytesHost(6, 0);
    void* bytesDeviceAddr = nullptr;
    aclTensor* bytes = nullptr;
    ret = CreateAclTensor(bytesHost, tShape, &bytesDeviceAddr, aclDataType::ACL_INT8, &bytes);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = RunCast(srcT, aclDataType::ACL_INT8, bytes, stream);
    CHECK_RET(ret == 0, return ret);
    std::vector<int8_t> bytesResult(6, 0);
    ret = ReadBack(bytesDeviceAddr, bytesResult);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    // Transposed: (i, j) = src[j][i] = srcHost[j * 3 + i].
    const int8_t want[6] = {2, -128, -2, 0, 127, 127};
    for (size_t i = 0; i < 6; i++) {
        CHECK_RET(bytesResult[i] == want[i], LOG_PRINT("int8[%zu] is %d, should be %d\n", i, bytesResult[i], want[i]);
                  return 1);
    }

    // 3. The first phase's rules (161002, no executor written).
    uint64_t workspaceSize = 0;
    aclOpExecutor* unused = nullptr;
    ret = aclnnCastGetWorkspaceSize(src, aclDataType::ACL_INT8, bytes, &workspaceSize, &unused);
    CHECK_RET(ret == 161002 && unused == nullptr, LOG_PRINT("2x3 into 3x2: %d\n", ret); return 1);
    ret = aclnnCastGetWorkspaceSize(srcT, aclDataType::ACL_INT16, bytes, &workspaceSize, &unused);
    CHECK_RET(ret == 161002 && unused == nullptr, LOG_PRINT("int16 into int8: %d\n", ret); return 1);
    ret = aclnnCastGetWorkspaceSize(nullptr, aclDataType::ACL_INT8, bytes, &workspaceSize, &unused);
    CHECK_RET(ret == 161001, LOG_PRINT("null self: %d\n", ret); return 1);

    aclDestroyTensor(self);
    aclDestroyTensor(out);
    aclDestroyTensor(src);
    aclDestroyTensor(srcT);
    aclDestroyTensor(bytes);
    aclrtFree(selfDeviceAddr);
    aclrtFree(outDeviceAddr);
    aclrtFree(srcDeviceAddr);
    aclrtFree(bytesDeviceAddr);
    aclrtDestroyStream(stream);
    aclrtResetDevice(deviceId);
    aclFinalize();
    LOG_PRINT("cast: ok\n");
    return 0;
}
