// aclnnIndex in the style of CANN's sample: a [3, 4] float self of 1..12
// and two int64 index tensors {0} and {2} in an aclTensorList -> [3.0]
// (CANN's sample); then int32 rows broadcast against int64 columns, an
// empty member that keeps its dim whole, a BOOL mask, a value past the end
// (a fault at synchronisation) and the first phase's rules (docs/ops.md §30).
#include <iostream>
#include <vector>
#include "acl/acl.h"
#include "aclnnop/aclnn_index.h"
#include "common.h"

static int RunIndex(const aclTensor* self, const aclTensorList* indices, aclTensor* out, aclrtStream stream,
                    aclError* sync)
{
    uint64_t workspaceSize = 0;
    aclOpExecutor* executor;
    auto ret = aclnnIndexGetWorkspaceSize(self, indices, out, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnIndexGetWorkspaceSize failed. ERROR: %d\n", ret); return ret);
    void* workspaceAddr = nullptr;
    if (workspaceSize > 0) {
        ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
    }
    ret = aclnnIndex(workspaceAddr, workspaceSize, executor, stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnIndex failed. ERROR: %d\n", ret); return ret);
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

    // 1. CANN's sample: self [3, 4] of 1..12, indices {0} and {2} -> [3].
    std::vector<int64_t> selfShape = {3, 4}, indexShape = {1}, outShape = {1};
    std::vector<float> selfHostData = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    void *selfDeviceAddr = nullptr, *indexOneDeviceAddr = nullptr, *indexTwoDeviceAddr = nullptr,
         *outDeviceAddr = nullptr;
    aclTensor *self = nullptr, *indexOne = nullptr, *indexTwo = nullptr, *out = nullptr;
    ret = CreateAclTensor(selfHostData, selfShape, &selfDeviceAddr, aclDataType::ACL_FLOAT, &self);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(std::vector<int64_t>{0}, indexShape, &indexOneDeviceAddr, aclDataType::ACL_INT64,
                          &indexOne);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(std::vector<int64_t>{2}, indexShape, &indexTwoDeviceAddr, aclDataType::ACL_INT64,
                          &indexTwo);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    aclTensor* indices[] = {indexOne, indexTwo};
    auto indexTensorList = aclCreateTensorList(indices, 2);
    CHECK_RET(indexTensorList != nullptr, LOG_PRINT("aclCreateTensorList failed\n"); return 1);
    ret = CreateAclTensor(std::vector<float>(1, 0), outShape, &outDeviceAddr, aclDataType::ACL_FLOAT, &out);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    aclError sync = 0;
    ret = RunIndex(self, indexTensorList, out, stream, &sync);
    CHECK_RET(ret == 0 && sync == ACL_SUCCESS, LOG_PRINT("sample failed: %d %d\n", ret, sync); return 1);
    std::vector<float> resultData(1, 0);
    ret = ReadBack(outDeviceAddr, resultData);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    LOG_PRINT("result[0] is: %f\n", resultData[0]);
    CHECK_RET(resultData[0] == 3, LOG_PRINT("should be 3\n"); return 1);

    // 2. Int32 rows {2, -3} as [2, 1] broadcast with int64 columns {3, 0}
    //    -> [[12, 9], [4, 1]].
    void *rowsAddr = nullptr, *colsAddr = nullptr, *o4Addr = nullptr;
    aclTensor *rows = nullptr, *cols = nullptr, *o4 = nullptr;
    ret = CreateAclTensor(std::vector<int32_t>{2, -3}, std::vector<int64_t>{2, 1}, &rowsAddr, aclDataType::ACL_INT32,
                          &rows);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(std::vector<int64_t>{3, 0}, std::vector<int64_t>{2}, &colsAddr, aclDataType::ACL_INT64,
                          &cols);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(std::vector<float>(4, 0), std::vector<int64_t>{2, 2}, &o4Addr, aclDataType::ACL_FLOAT, &o4);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    aclTensor* pair[] = {rows, cols};
    auto pairList = aclCreateTensorList(pair, 2);
    ret = RunIndex(self, pairList, o4, stream, &sync);
    CHECK_RET(ret == 0 && sync == ACL_SUCCESS, LOG_PRINT("broadcast failed: %d %d\n", ret, sync); return 1);
    std::vector<float> got4(4, 0);
    ret = ReadBack(o4Addr, got4);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    CHECK_RET(got4[0] == 12 && got4[1] == 9 && got4[2] == 4 && got4[3] == 1,
              LOG_PRINT("broadcast gave %f %f %f %f\n", got4[0], got4[1], got4[2], got4[3]); return 1);

    // 3. An empty member keeps dim 0 whole: self[:, {3, 0}] -> [3, 2].
    void *noneAddr = nullptr, *cols2Addr = nullptr, *o6Addr = nullptr;
    aclTensor *none = nullptr, *cols2 = nullptr, *o6 = nullptr;
    ret = aclrtMalloc(&noneAddr, 32, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    int64_t noneShape[] = {0}, noneStrides[] = {1};
    none = aclCreateTensor(noneShape, 1, aclDataType::ACL_INT64, noneStrides, 0, aclFormat::ACL_FORMAT_ND, noneShape,
                           1, noneAddr);
    CHECK_RET(none != nullptr, LOG_PRINT("empty tensor failed\n"); return 1);
    ret = CreateAclTensor(std::vector<int64_t>{3, 0}, std::vector<int64_t>{2}, &cols2Addr, aclDataType::ACL_INT64,
                          &cols2);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(std::vector<float>(6, 0), std::vector<int64_t>{3, 2}, &o6Addr, aclDataType::ACL_FLOAT, &o6);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    aclTensor* keep[] = {none, cols2};
    auto keepList = aclCreateTensorList(keep, 2);
    ret = RunIndex(self, keepList, o6, stream, &sync);
    CHECK_RET(ret == 0 && sync == ACL_SUCCESS, LOG_PRINT("empty member failed: %d %d\n", ret, sync); return 1);
    std::vector<float> got6(6, 0);
    ret = ReadBack(o6Addr, got6);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    const float want6[] = {4, 1, 8, 5, 12, 9};
    for (int k = 0; k < 6; k++) {
        CHECK_RET(got6[k] == want6[k], LOG_PRINT("empty member: [%d] is %f, want %f\n", k, got6[k], want6[k]);
                  return 1);
    }

    // 3b. A BOOL mask of self's shape: its set elements, in row-major order.
    void *maskAddr = nullptr, *o3Addr = nullptr;
    aclTensor *mask = nullptr, *o3 = nullptr;
    std::vector<uint8_t> maskData = {0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    ret = CreateAclTensor(maskData, std::vector<int64_t>{3, 4}, &maskAddr, aclDataType::ACL_BOOL, &mask);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(std::vector<float>(3, 0), std::vector<int64_t>{3}, &o3Addr, aclDataType::ACL_FLOAT, &o3);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    aclTensor* masked[] = {mask};
    auto maskList = aclCreateTensorList(masked, 1);
    ret = RunIndex(self, maskList, o3, stream, &sync);
    CHECK_RET(ret == 0 && sync == ACL_SUCCESS, LOG_PRINT("bool mask failed: %d %d\n", ret, sync); return 1);
    std::vector<float> got3(3, 0);
    ret = ReadBack(o3Addr, got3);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    const float want3[] = {2, 7, 12};
    for (int k = 0; k < 3; k++) {
        CHECK_RET(got3[k] == want3[k], LOG_PRINT("bool mask: [%d] is %f, want %f\n", k, got3[k], want3[k]);
                  return 1);
    }
    aclDestroyTensorList(maskList);
    aclDestroyTensor(o3);
    aclrtFree(maskAddr);
    aclrtFree(o3Addr);

    // 4. A value past the end: a fault at synchronisation.
    void* badAddr = nullptr;
    aclTensor* bad = nullptr;
    ret = CreateAclTensor(std::vector<int64_t>{3}, indexShape, &badAddr, aclDataType::ACL_INT64, &bad);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    void* o1Addr = nullptr;
    aclTensor* o1 = nullptr;
    ret = CreateAclTensor(std::vector<float>(4, 0), std::vector<int64_t>{1, 4}, &o1Addr, aclDataType::ACL_FLOAT, &o1);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    aclTensor* badOne[] = {bad};
    auto badList = aclCreateTensorList(badOne, 1);
    ret = RunIndex(self, badList, o1, stream, &sync);
    CHECK_RET(ret == 0 && sync != ACL_SUCCESS, LOG_PRINT("past the end: %d %d\n", ret, sync); return 1);

    // 5. The first phase's rules and codes.
    uint64_t workspaceSize = 0;
    aclOpExecutor* unused = nullptr;
    ret = aclnnIndexGetWorkspaceSize(nullptr, indexTensorList, out, &workspaceSize, &unused);
    CHECK_RET(ret == 161001, LOG_PRINT("null self: %d\n", ret); return 1);
    ret = aclnnIndexGetWorkspaceSize(self, nullptr, out, &workspaceSize, &unused);
    CHECK_RET(ret == 161001, LOG_PRINT("null indices: %d\n", ret); return 1);
    ret = aclnnIndexGetWorkspaceSize(self, indexTensorList, o4, &workspaceSize, &unused);
    CHECK_RET(ret == 161002 && unused == nullptr, LOG_PRINT("out [2, 2] for out shape [1]: %d\n", ret); return 1);
    ret = aclnnIndexGetWorkspaceSize(self, indexTensorList, rows, &workspaceSize, &unused);
    CHECK_RET(ret == 161002, LOG_PRINT("int32 out for float self: %d\n", ret); return 1);

    aclDestroyTensor(self);
    aclDestroyTensorList(indexTensorList);
    aclDestroyTensorList(pairList);
    aclDestroyTensorList(keepList);
    aclDestroyTensorList(badList);
    aclDestroyTensor(out);
    aclDestroyTensor(o4);
    aclDestroyTensor(o6);
    aclDestroyTensor(o1);
    aclrtFree(selfDeviceAddr);
    aclrtFree(indexOneDeviceAddr);
    aclrtFree(indexTwoDeviceAddr);
    aclrtFree(outDeviceAddr);
    aclrtFree(rowsAddr);
    aclrtFree(colsAddr);
    aclrtFree(o4Addr);
    aclrtFree(noneAddr);
    aclrtFree(cols2Addr);
    aclrtFree(o6Addr);
    aclrtFree(badAddr);
    aclrtFree(o1Addr);
    aclrtDestroyStream(stream);
    aclrtResetDevice(deviceId);
    aclFinalize();
    LOG_PRINT("index: ok\n");
    return 0;
}
