// aclnnGather in the style of CANN's sample: a [4, 2] float self and an
// int64 [4, 2] index along dim 0 (CANN's sample), then the page's two
// 3x3 examples with int32 indices (dim 1 into a transposed out), an index
// past the end (a fault at synchronisation) and the first phase's rules
// (docs/ops.md §25).
#include <iostream>
#include <vector>
#include "acl/acl.h"
#include "aclnnop/aclnn_gather.h"
#include "common.h"

static int RunGather(const aclTensor* self, int64_t dim, const aclTensor* index, aclTensor* out, aclrtStream stream,
                     aclError* sync)
{
    uint64_t workspaceSize = 0;
    aclOpExecutor* executor;
    auto ret = aclnnGatherGetWorkspaceSize(self, dim, index, out, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnGatherGetWorkspaceSize failed. ERROR: %d\n", ret); return ret);
    void* workspaceAddr = nullptr;
    if (workspaceSize > 0) {
        ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
    }
    ret = aclnnGather(workspaceAddr, workspaceSize, executor, stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnGather failed. ERROR: %d\n", ret); return ret);
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

    // 1. CANN's sample: self [4, 2] = 0..7, index {0, 1, 2, 3, 3, 2, 1, 0}, dim 0.
    std::vector<int64_t> selfShape = {4, 2}, indexShape = {4, 2}, outShape = {4, 2};
    std::vector<float> selfHostData = {0, 1, 2, 3, 4, 5, 6, 7};
    std::vector<int64_t> indexHostData = {0, 1, 2, 3, 3, 2, 1, 0};
    std::vector<float> outHostData(8, 0);
    void *selfDeviceAddr = nullptr, *indexDeviceAddr = nullptr, *outDeviceAddr = nullptr;
    aclTensor *self = nullptr, *index = nullptr, *out = nullptr;
    ret = CreateAclTensor(selfHostData, selfShape, &selfDeviceAddr, aclDataType::ACL_FLOAT, &self);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(indexHostData, indexShape, &indexDeviceAddr, aclDataType::ACL_INT64, &index);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(outHostData, outShape, &outDeviceAddr, aclDataType::ACL_FLOAT, &out);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    aclError sync = 0;
    ret = RunGather(self, 0, index, out, stream, &sync);
    CHECK_RET(ret == 0 && sync == ACL_SUCCESS, LOG_PRINT("sample failed: %d %d\n", ret, sync); return 1);
    std::vector<float> resultData(8, 0);
    ret = ReadBack(outDeviceAddr, resultData);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    // out[r][c] = self[index[r][c]][c].
    const float want[8] = {0, 3, 4, 7, 6, 5, 2, 1};
    for (int64_t i = 0; i < 8; i++) {
        LOG_PRINT("result[%ld] is: %f\n", i, resultData[i]);
        CHECK_RET(resultData[i] == want[i], LOG_PRINT("should be %f\n", want[i]); return 1);
    }

    // 2. The page's examples: self = [[1, 2, 3], [4, 5, 6], [7, 8, 9]],
    //    index = [[0, 2], [1, 0]] (int32): dim 0 gives [[1, 8], [4, 2]]; dim 1
    //    gives [[1, 3], [5, 4]], here into a transposed out.
    void* x3Addr = nullptr;
    aclTensor* x3 = nullptr;
    ret = CreateAclTensor(std::vector<int32_t>{1, 2, 3, 4, 5, 6, 7, 8, 9}, std::vector<int64_t>{3, 3}, &x3Addr,
                          aclDataType::ACL_INT32, &x3);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    void* i32Addr = nullptr;
    aclTensor* i32 = nullptr;
    ret = CreateAclTensor(std::vector<int32_t>{0, 2, 1, 0}, std::vector<int64_t>{2, 2}, &i32Addr,
                          aclDataType::ACL_INT32, &i32);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    void* o0Addr = nullptr;
    aclTensor* o0 = nullptr;
    ret = CreateAclTensor(std::vector<int32_t>(4, 0), std::vector<int64_t>{2, 2}, &o0Addr, aclDataType::ACL_INT32,
                          &o0);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = RunGather(x3, 0, i32, o0, stream, &sync);
    CHECK_RET(ret == 0 && sync == ACL_SUCCESS, LOG_PRINT("dim 0 failed: %d %d\n", ret, sync); return 1);
    std::vector<int32_t> got0(4, 0);
    ret = ReadBack(o0Addr, got0);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    CHECK_RET(got0[0] == 1 && got0[1] == 8 && got0[2] == 4 && got0[3] == 2,
              LOG_PRINT("dim 0 gave %d %d %d %d\n", got0[0], got0[1], got0[2], got0[3]); return 1);
    std::vector<int64_t> oShape = {2, 2}, oStrides = {1, 2}, oStorage = {4};
    aclTensor* outT = aclCreateTensor(oShape.data(), oShape.size(), aclDataType::ACL_INT32, oStrides.data(), 0,
                                      aclFormat::ACL_FORMAT_ND, oStorage.data(), oStorage.size(), o0Addr);
    ret = RunGather(x3, 1, i32, outT, stream, &sync);
    CHECK_RET(ret == 0 && sync == ACL_SUCCESS, LOG_PRINT("dim 1 failed: %d %d\n", ret, sync); return 1);
    // [[1, 3], [5, 4]] with y[r][c] at r + 2c: {1, 5, 3, 4}.
    ret = ReadBack(o0Addr, got0);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    CHECK_RET(got0[0] == 1 && got0[1] == 5 && got0[2] == 3 && got0[3] == 4,
              LOG_PRINT("dim 1 gave %d %d %d %d\n", got0[0], got0[1], got0[2], got0[3]); return 1);

    // 3. An index past the end: the gather faults; synchronisation says so.
    void* badAddr = nullptr;
    aclTensor* bad = nullptr;
    ret = CreateAclTensor(std::vector<int64_t>{4, 0}, std::vector<int64_t>{1, 2}, &badAddr, aclDataType::ACL_INT64,
                          &bad);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    void* oneAddr = nullptr;
    aclTensor* one = nullptr;
    ret = CreateAclTensor(std::vector<float>(2, 0), std::vector<int64_t>{1, 2}, &oneAddr, aclDataType::ACL_FLOAT, &one);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = RunGather(self, 0, bad, one, stream, &sync);
    CHECK_RET(ret == 0 && sync != ACL_SUCCESS, LOG_PRINT("index 4 of 4 rows: %d %d\n", ret, sync); return 1);

    // 4. The first phase's rules and codes.
    uint64_t workspaceSize = 0;
    aclOpExecutor* unused = nullptr;
    ret = aclnnGatherGetWorkspaceSize(self, 0, index, one, &workspaceSize, &unused);
    CHECK_RET(ret == 161002 && unused == nullptr, LOG_PRINT("out [1, 2] for a [4, 2] index: %d\n", ret); return 1);
    ret = aclnnGatherGetWorkspaceSize(self, 2, index, out, &workspaceSize, &unused);
    CHECK_RET(ret == 161002, LOG_PRINT("dim 2 of rank 2: %d\n", ret); return 1);
    ret = aclnnGatherGetWorkspaceSize(self, 0, self, out, &workspaceSize, &unused);
    CHECK_RET(ret == 161002, LOG_PRINT("float index: %d\n", ret); return 1);
    ret = aclnnGatherGetWorkspaceSize(x3, 1, index, out, &workspaceSize, &unused);
    CHECK_RET(ret == 161002, LOG_PRINT("index [4, 2] over self [3, 3]: %d\n", ret); return 1);
    ret = aclnnGatherGetWorkspaceSize(nullptr, 0, index, out, &workspaceSize, &unused);
    CHECK_RET(ret == 161001, LOG_PRINT("null self: %d\n", ret); return 1);

    aclDestroyTensor(self);
    aclDestroyTensor(index);
    aclDestroyTensor(out);
    aclDestroyTensor(x3);
    aclDestroyTensor(i32);
    aclDestroyTensor(o0);
    aclDestroyTensor(outT);
    aclDestroyTensor(bad);
    aclDestroyTensor(one);
    aclrtFree(selfDeviceAddr);
    aclrtFree(indexDeviceAddr);
    aclrtFree(outDeviceAddr);
    aclrtFree(x3Addr);
    aclrtFree(i32Addr);
    aclrtFree(o0Addr);
    aclrtFree(badAddr);
    aclrtFree(oneAddr);
    aclrtDestroyStream(stream);
    aclrtResetDevice(deviceId);
    aclFinalize();
    LOG_PRINT("gather: ok\n");
    return 0;
}
