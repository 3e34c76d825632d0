// aclnnGatherNd in the style of CANN's sample: a [2, 2] float self and
// int64 indices {{0, 0}, {1, 1}} with negativeIndexSupport (CANN's sample),
// then the page's third example (K = 2 over a [2, 2, 2] self) with int32
// indices, negative coordinates, a coordinate past the end (a fault at
// synchronisation) and the first phase's rules (docs/ops.md §28).
#include <iostream>
#include <vector>
#include "acl/acl.h"
#include "aclnnop/aclnn_gather_nd.h"
#include "common.h"

static int RunGatherNd(const aclTensor* self, const aclTensor* indices, bool negative, aclTensor* out,
                       aclrtStream stream, aclError* sync)
{
    uint64_t workspaceSize = 0;
    aclOpExecutor* executor;
    auto ret = aclnnGatherNdGetWorkspaceSize(self, indices, negative, out, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnGatherNdGetWorkspaceSize failed. ERROR: %d\n", ret); return ret);
    void* workspaceAddr = nullptr;
    if (workspaceSize > 0) {
        ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
    }
    ret = aclnnGatherNd(workspaceAddr, workspaceSize, executor, stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnGatherNd failed. ERROR: %d\n", ret); return ret);
    *sync = aclrtSynchronizeStream(stream);
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

    // 1. CANN's sample: self [[0, 1], [2, 3]], indices [[0, 0], [1, 1]] -> [0, 3].
    std::vector<int64_t> selfShape = {2, 2}, indicesShape = {2, 2}, outShape = {2};
    std::vector<float> selfHostData = {0, 1, 2, 3};
    std::vector<int64_t> indicesHostData = {0, 0, 1, 1};
    void *selfDeviceAddr = nullptr, *indicesDeviceAddr = nullptr, *outDeviceAddr = nullptr;
    aclTensor *self = nullptr, *indices = nullptr, *out = nullptr;
    ret = CreateAclTensor(selfHostData, selfShape, &selfDeviceAddr, aclDataType::ACL_FLOAT, &self);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(indicesHostData, indicesShape, &indicesDeviceAddr, aclDataType::ACL_INT64, &indices);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(std::vector<float>(2, 0), outShape, &outDeviceAddr, aclDataType::ACL_FLOAT, &out);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    aclError sync = 0;
    ret = RunGatherNd(self, indices, true, out, stream, &sync);
    CHECK_RET(ret == 0 && sync == ACL_SUCCESS, LOG_PRINT("sample failed: %d %d\n", ret, sync); return 1);
    std::vector<float> resultData(2, 0);
    ret = ReadBack(outDeviceAddr, resultData);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    for (int64_t i = 0; i < 2; i++) {
        LOG_PRINT("result[%ld] is: %f\n", i, resultData[i]);
    }
    CHECK_RET(resultData[0] == 0 && resultData[1] == 3, LOG_PRINT("should be 0, 3\n"); return 1);

    // 2. The page's third example: self [2, 2, 2] of 0..7, int32 indices
    //    [[0, 1], [1, 0]] -> [[2, 3], [4, 5]]; then [[-2, -1]] with the flag -> [[2, 3]].
    void* x3Addr = nullptr;
    aclTensor* x3 = nullptr;
    ret = CreateAclTensor(std::vector<int32_t>{0, 1, 2, 3, 4, 5, 6, 7}, std::vector<int64_t>{2, 2, 2}, &x3Addr,
                          aclDataType::ACL_INT32, &x3);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    void* i32Addr = nullptr;
    aclTensor* i32 = nullptr;
    ret = CreateAclTensor(std::vector<int32_t>{0, 1, 1, 0}, std::vector<int64_t>{2, 2}, &i32Addr,
                          aclDataType::ACL_INT32, &i32);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    void* o4Addr = nullptr;
    aclTensor* o4 = nullptr;
    ret = CreateAclTensor(std::vector<int32_t>(4, 0), std::vector<int64_t>{2, 2}, &o4Addr, aclDataType::ACL_INT32,
                          &o4);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = RunGatherNd(x3, i32, false, o4, stream, &sync);
    CHECK_RET(ret == 0 && sync == ACL_SUCCESS, LOG_PRINT("example 3 failed: %d %d\n", ret, sync); return 1);
    std::vector<int32_t> got4(4, 0);
    ret = ReadBack(o4Addr, got4);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    CHECK_RET(got4[0] == 2 && got4[1] == 3 && got4[2] == 4 && got4[3] == 5,
              LOG_PRINT("example 3 gave %d %d %d %d\n", got4[0], got4[1], got4[2], got4[3]); return 1);
    void* negAddr = nullptr;
    aclTensor* neg = nullptr;
    ret = CreateAclTensor(std::vector<int64_t>{-2, -1}, std::vector<int64_t>{1, 2}, &negAddr, aclDataType::ACL_INT64,
                          &neg);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    void* o2Addr = nullptr;
    aclTensor* o2 = nullptr;
    ret = CreateAclTensor(std::vector<int32_t>(2, 0), std::vector<int64_t>{1, 2}, &o2Addr, aclDataType::ACL_INT32,
                          &o2);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = RunGatherNd(x3, neg, true, o2, stream, &sync);
    CHECK_RET(ret == 0 && sync == ACL_SUCCESS, LOG_PRINT("negative failed: %d %d\n", ret, sync); return 1);
    std::vector<int32_t> got2(2, 0);
    ret = ReadBack(o2Addr, got2);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    CHECK_RET(got2[0] == 2 && got2[1] == 3, LOG_PRINT("negative gave %d %d\n", got2[0], got2[1]); return 1);

    // 3. Without the flag a negative coordinate is out of range: a fault.
    ret = RunGatherNd(x3, neg, false, o2, stream, &sync);
    CHECK_RET(ret == 0 && sync != ACL_SUCCESS, LOG_PRINT("negative without the flag: %d %d\n", ret, sync); return 1);

    // 4. The first phase's rules and codes.
    uint64_t workspaceSize = 0;
    aclOpExecutor* unused = nullptr;
    ret = aclnnGatherNdGetWorkspaceSize(self, indices, false, o4, &workspaceSize, &unused);
    CHECK_RET(ret == 161002 && unused == nullptr, LOG_PRINT("int32 out for float self: %d\n", ret); return 1);
    ret = aclnnGatherNdGetWorkspaceSize(self, self, false, out, &workspaceSize, &unused);
    CHECK_RET(ret == 161002, LOG_PRINT("float indices: %d\n", ret); return 1);
    ret = aclnnGatherNdGetWorkspaceSize(self, indices, false, o2, &workspaceSize, &unused);
    CHECK_RET(ret == 161002, LOG_PRINT("out [1, 2] for out shape [2]: %d\n", ret); return 1);
    ret = aclnnGatherNdGetWorkspaceSize(self, nullptr, false, out, &workspaceSize, &unused);
    CHECK_RET(ret == 161001, LOG_PRINT("null indices: %d\n", ret); return 1);

    aclDestroyTensor(self);
    aclDestroyTensor(indices);
    aclDestroyTensor(out);
    aclDestroyTensor(x3);
    aclDestroyTensor(i32);
    aclDestroyTensor(o4);
    aclDestroyTensor(neg);
    aclDestroyTensor(o2);
    aclrtFree(selfDeviceAddr);
    aclrtFree(indicesDeviceAddr);
    aclrtFree(outDeviceAddr);
    aclrtFree(x3Addr);
    aclrtFree(i32Addr);
    aclrtFree(o4Addr);
    aclrtFree(negAddr);
    aclrtFree(o2Addr);
    aclrtDestroyStream(stream);
    aclrtResetDevice(deviceId);
    aclFinalize();
    LOG_PRINT("gather_nd: ok\n");
    return 0;
}
