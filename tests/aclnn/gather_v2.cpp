// aclnnGatherV2 in the style of CANN's sample: a [2, 2] float self and an
// int64 [2, 2] index along dim 0 (CANN's sample), then the page's [3, 3]
// example along dim 1 with int32 indices into a transposed out, a 0-D
// index, an index past the end (a fault at synchronisation) and the first
// phase's rules (docs/ops.md §24).
#include <iostream>
#include <vector>
#include "acl/acl.h"
#include "aclnnop/aclnn_gather_v2.h"
#include "common.h"

static int RunGatherV2(const aclTensor* self, int64_t dim, const aclTensor* index, aclTensor* out,
                       aclrtStream stream, aclError* sync)
{
    uint64_t workspaceSize = 0;
    aclOpExecutor* executor;
    auto ret = aclnnGatherV2GetWorkspaceSize(self, dim, index, out, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnGatherV2GetWorkspaceSize failed. ERROR: %d\n", ret); return ret);
    void* workspaceAddr = nullptr;
    if (workspaceSize > 0) {
        ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
    }
    ret = aclnnGatherV2(workspaceAddr, workspaceSize, executor, stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnGatherV2 failed. ERROR: %d\n", ret); return ret);
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

    // 1. CANN's sample: self [2, 2] = {0, 1, 2, 3}, index [2, 2] = {0, 1, 0, 1}, dim 0.
    std::vector<int64_t> selfShape = {2, 2}, indexShape = {2, 2}, outShape = {2, 2, 2};
    std::vector<float> selfHostData = {0, 1, 2, 3};
    std::vector<int64_t> indexHostData = {0, 1, 0, 1};
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
    ret = RunGatherV2(self, 0, index, out, stream, &sync);
    CHECK_RET(ret == 0 && sync == ACL_SUCCESS, LOG_PRINT("sample failed: %d %d\n", ret, sync); return 1);
    std::vector<float> resultData(8, 0);
    ret = ReadBack(outDeviceAddr, resultData);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    // out[i][j][:] = self[index[i][j]][:]: rows 0, 1, 0, 1.
    const float want[8] = {0, 1, 2, 3, 0, 1, 2, 3};
    for (int64_t i = 0; i < 8; i++) {
        LOG_PRINT("result[%ld] is: %f\n", i, resultData[i]);
        CHECK_RET(resultData[i] == want[i], LOG_PRINT("should be %f\n", want[i]); return 1);
    }

    // 2. The page's example: x = [[1, 2, 3], [4, 5, 6], [7, 8, 9]], idx = [1, 0]
    //    (int32), dim 1, into a transposed [3, 2] out.
    std::vector<int32_t> x3Host = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    void* x3Addr = nullptr;
    aclTensor* x3 = nullptr;
    ret = CreateAclTensor(x3Host, std::vector<int64_t>{3, 3}, &x3Addr, aclDataType::ACL_INT32, &x3);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    std::vector<int32_t> i32Host = {1, 0};
    void* i32Addr = nullptr;
    aclTensor* i32 = nullptr;
    ret = CreateAclTensor(i32Host, std::vector<int64_t>{2}, &i32Addr, aclDataType::ACL_INT32, &i32);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    void* tAddr = nullptr;
    aclTensor* tDense = nullptr;
    ret = CreateAclTensor(std::vector<int32_t>(6, 0), std::vector<int64_t>{6}, &tAddr, aclDataType::ACL_INT32,
                          &tDense);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    std::vector<int64_t> oShape = {3, 2}, oStrides = {1, 3}, oStorage = {6};
    aclTensor* outT = aclCreateTensor(oShape.data(), oShape.size(), aclDataType::ACL_INT32, oStrides.data(), 0,
                                      aclFormat::ACL_FORMAT_ND, oStorage.data(), oStorage.size(), tAddr);
    ret = RunGatherV2(x3, 1, i32, outT, stream, &sync);
    CHECK_RET(ret == 0 && sync == ACL_SUCCESS, LOG_PRINT("dim 1 failed: %d %d\n", ret, sync); return 1);
    // y = [[2, 1], [5, 4], [8, 7]]; y[r][c] lies at r + 3c.
    std::vector<int32_t> tGot(6, 0);
    ret = ReadBack(tAddr, tGot);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    const int32_t tWant[6] = {2, 5, 8, 1, 4, 7};
    for (int k = 0; k < 6; k++) {
        CHECK_RET(tGot[k] == tWant[k], LOG_PRINT("transposed[%d] is %d, should be %d\n", k, tGot[k], tWant[k]);
                  return 1);
    }

    // 3. A 0-D index keeps the rank: x3 along dim 0 with index 2 is [1, 3] = {7, 8, 9}.
    std::vector<int64_t> zeroDims;
    void* i0Addr = nullptr;
    aclTensor* i0 = nullptr;
    ret = CreateAclTensor(std::vector<int64_t>{2}, zeroDims, &i0Addr, aclDataType::ACL_INT64, &i0);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    void* rowAddr = nullptr;
    aclTensor* row = nullptr;
    ret = CreateAclTensor(std::vector<int32_t>(3, 0), std::vector<int64_t>{1, 3}, &rowAddr, aclDataType::ACL_INT32,
                          &row);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = RunGatherV2(x3, 0, i0, row, stream, &sync);
    CHECK_RET(ret == 0 && sync == ACL_SUCCESS, LOG_PRINT("0-D index failed: %d %d\n", ret, sync); return 1);
    std::vector<int32_t> rowGot(3, 0);
    ret = ReadBack(rowAddr, rowGot);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    CHECK_RET(rowGot[0] == 7 && rowGot[1] == 8 && rowGot[2] == 9,
              LOG_PRINT("0-D index gave %d %d %d\n", rowGot[0], rowGot[1], rowGot[2]); return 1);

    // 4. An index past the end: the gather faults; synchronisation says so.
    std::vector<int64_t> badHost = {2};
    void* badAddr = nullptr;
    aclTensor* bad = nullptr;
    ret = CreateAclTensor(badHost, std::vector<int64_t>{1}, &badAddr, aclDataType::ACL_INT64, &bad);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    void* oneAddr = nullptr;
    aclTensor* one = nullptr;
    ret = CreateAclTensor(std::vector<float>(2, 0), std::vector<int64_t>{1, 2}, &oneAddr, aclDataType::ACL_FLOAT, &one);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = RunGatherV2(self, 0, bad, one, stream, &sync);
    CHECK_RET(ret == 0 && sync != ACL_SUCCESS, LOG_PRINT("index 2 of 2 rows: %d %d\n", ret, sync); return 1);

    // 5. The first phase's rules and codes.
    uint64_t workspaceSize = 0;
    aclOpExecutor* unused = nullptr;
    ret = aclnnGatherV2GetWorkspaceSize(self, 0, index, one, &workspaceSize, &unused);
    CHECK_RET(ret == 161002 && unused == nullptr, LOG_PRINT("out [1, 2] for a [2, 2] index: %d\n", ret); return 1);
    ret = aclnnGatherV2GetWorkspaceSize(self, 2, index, out, &workspaceSize, &unused);
    CHECK_RET(ret == 161002, LOG_PRINT("dim 2 of rank 2: %d\n", ret); return 1);
    ret = aclnnGatherV2GetWorkspaceSize(self, 0, self, out, &workspaceSize, &unused);
    CHECK_RET(ret == 161002, LOG_PRINT("float index: %d\n", ret); return 1);
    ret = aclnnGatherV2GetWorkspaceSize(self, 0, index, outT, &workspaceSize, &unused);
    CHECK_RET(ret == 161002, LOG_PRINT("int32 out for float self: %d\n", ret); return 1);
    ret = aclnnGatherV2GetWorkspaceSize(self, 0, nullptr, out, &workspaceSize, &unused);
    CHECK_RET(ret == 161001, LOG_PRINT("null index: %d\n", ret); return 1);

    aclDestroyTensor(self);
    aclDestroyTensor(index);
    aclDestroyTensor(out);
    aclDestroyTensor(x3);
    aclDestroyTensor(i32);
    aclDestroyTensor(tDense);
    aclDestroyTensor(outT);
    aclDestroyTensor(i0);
    aclDestroyTensor(row);
    aclDestroyTensor(bad);
    aclDestroyTensor(one);
    aclrtFree(selfDeviceAddr);
    aclrtFree(indexDeviceAddr);
    aclrtFree(outDeviceAddr);
    aclrtFree(x3Addr);
    aclrtFree(i32Addr);
    aclrtFree(tAddr);
    aclrtFree(i0Addr);
    aclrtFree(rowAddr);
    aclrtFree(badAddr);
    aclrtFree(oneAddr);
    aclrtDestroyStream(stream);
    aclrtResetDevice(deviceId);
    aclFinalize();
    LOG_PRINT("gather_v2: ok\n");
    return 0;
}
