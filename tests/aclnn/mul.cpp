// aclnnMul and aclnnInplaceMul in the style of CANN's sample: an int8 4x1
// column times an int16 row (promoted to int16, broadcast to 4x3), then an
// int32 tensor scaled in place by a broadcast column, wrapping modulo 2^32
// as docs/ops.md §9 defines.
#include <iostream>
#include <vector>
#include "acl/acl.h"
#include "aclnnop/aclnn_mul.h"
#include "common.h"

static int RunPhase2(uint64_t workspaceSize, aclOpExecutor* executor, aclrtStream stream, bool inplace)
{
    void* workspaceAddr = nullptr;
    if (workspaceSize > 0) {
        auto ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
    }
    auto ret = inplace ? aclnnInplaceMul(workspaceAddr, workspaceSize, executor, stream)
                       : aclnnMul(workspaceAddr, workspaceSize, executor, stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnMul failed. ERROR: %d\n", ret); return ret);
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

    std::vector<int64_t> selfShape = {4, 1}, otherShape = {3}, outShape = {4, 3};
    void *selfDeviceAddr = nullptr, *otherDeviceAddr = nullptr, *outDeviceAddr = nullptr;
    aclTensor *self = nullptr, *other = nullptr, *out = nullptr;
    std::vector<int8_t> selfHostData = {1, -2, 100, -128};
    std::vector<int16_t> otherHostData = {3, -300, 1000};
    std::vector<int16_t> outHostData(12, 0);
    ret = CreateAclTensor(selfHostData, selfShape, &selfDeviceAddr, aclDataType::ACL_INT8, &self);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(otherHostData, otherShape, &otherDeviceAddr, aclDataType::ACL_INT16, &other);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(outHostData, outShape, &outDeviceAddr, aclDataType::ACL_INT16, &out);
    CHECK_RET(ret == ACL_SUCCESS, return ret);

    uint64_t workspaceSize = 0;
    aclOpExecutor* executor;
    ret = aclnnMulGetWorkspaceSize(self, other, out, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnMulGetWorkspaceSize failed. ERROR: %d\n", ret); return ret);
    ret = RunPhase2(workspaceSize, executor, stream, false);
    CHECK_RET(ret == 0, return ret);

    std::vector<int16_t> resultData(12, 0);
    ret = ReadBack(outDeviceAddr, resultData);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("copy result failed. ERROR: %d\n", ret); return ret);
    for (size_t i = 0; i < resultData.size(); i++) {
        // int16 products, modulo 2^16.
        int16_t want = (int16_t)(uint16_t)((uint32_t)(int32_t)selfHostData[i / 3] *
                                           (uint32_t)(int32_t)otherHostData[i % 3]);
        LOG_PRINT("result[%zu] is: %d\n", i, resultData[i]);
        CHECK_RET(resultData[i] == want, LOG_PRINT("result[%zu] should be %d\n", i, want); return 1);
    }

    // In place: an int32 2x2 tensor times a 2x1 column.
    std::vector<int64_t> accShape = {2, 2}, colShape = {2, 1};
    std::vector<int32_t> accHost = {2147483647, 3, -7, 40000};
    std::vector<int32_t> colHost = {2, 50000};
    void *accDeviceAddr = nullptr, *colDeviceAddr = nullptr;
    aclTensor *acc = nullptr, *col = nullptr;
    ret = CreateAclTensor(accHost, accShape, &accDeviceAddr, aclDataType::ACL_INT32, &acc);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(colHost, colShape, &colDeviceAddr, aclDataType::ACL_INT32, &col);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = aclnnInplaceMulGetWorkspaceSize(acc, col, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnInplaceMulGetWorkspaceSize failed. ERROR: %d\n", ret); return ret);
    ret = RunPhase2(workspaceSize, executor, stream, true);
    CHECK_RET(ret == 0, return ret);
    std::vector<int32_t> accResult(4, 0);
    ret = ReadBack(accDeviceAddr, accResult);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    for (size_t i = 0; i < accResult.size(); i++) {
        int32_t want = (int32_t)((uint32_t)accHost[i] * (uint32_t)colHost[i / 2]);
        CHECK_RET(accResult[i] == want, LOG_PRINT("in place [%zu] is %d, should be %d\n", i, accResult[i], want);
                  return 1);
    }

    // The first phase's rules: shapes that do not broadcast, and a selfRef
    // the broadcast would have to grow.
    aclOpExecutor* unused = nullptr;
    ret = aclnnMulGetWorkspaceSize(acc, other, out, &workspaceSize, &unused);
    CHECK_RET(ret == 161002 && unused == nullptr, LOG_PRINT("2x2 with 3: %d\n", ret); return 1);
    ret = aclnnInplaceMulGetWorkspaceSize(col, acc, &workspaceSize, &unused);
    CHECK_RET(ret == 161002, LOG_PRINT("selfRef 2x1 with 2x2: %d\n", ret); return 1);

    aclDestroyTensor(self);
    aclDestroyTensor(other);
    aclDestroyTensor(out);
    aclDestroyTensor(acc);
    aclDestroyTensor(col);
    aclrtFree(selfDeviceAddr);
    aclrtFree(otherDeviceAddr);
    aclrtFree(outDeviceAddr);
    aclrtFree(accDeviceAddr);
    aclrtFree(colDeviceAddr);
    aclrtDestroyStream(stream);
    aclrtResetDevice(deviceId);
    aclFinalize();
    LOG_PRINT("mul: ok\n");
    return 0;
}
