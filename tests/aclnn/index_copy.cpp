// aclnnIndexCopy and its in-place twin aclnnInplaceIndexCopy in the style
// of CANN's samples: a [3, 2] float self, int64 index {2, 0} and a [2, 2]
// source along dim 0 into a new out, then the same in place along dim 1
// with an int32 index, an index past the end (a fault at synchronisation)
// and the first phase's rules (docs/ops.md §27).
#include <iostream>
#include <vector>
#include "acl/acl.h"
#include "aclnnop/aclnn_index_copy.h"
#include "common.h"

static int Launch(uint64_t workspaceSize, aclOpExecutor* executor, bool inplace, aclrtStream stream, aclError* sync)
{
    void* workspaceAddr = nullptr;
    if (workspaceSize > 0) {
        auto ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
    }
    auto ret = inplace ? aclnnInplaceIndexCopy(workspaceAddr, workspaceSize, executor, stream)
                       : aclnnIndexCopy(workspaceAddr, workspaceSize, executor, stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("second phase failed. ERROR: %d\n", ret); return ret);
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

    // 1. aclnnIndexCopy: out = self with rows 2 and 0 replaced by source's.
    std::vector<int64_t> selfShape = {3, 2}, indexShape = {2}, sourceShape = {2, 2};
    std::vector<float> selfHostData = {0, 1, 2, 3, 4, 5};
    std::vector<int64_t> indexHostData = {2, 0};
    std::vector<float> sourceHostData = {10, 11, 12, 13};
    void *selfDeviceAddr = nullptr, *indexDeviceAddr = nullptr, *sourceDeviceAddr = nullptr, *outDeviceAddr = nullptr;
    aclTensor *self = nullptr, *index = nullptr, *source = nullptr, *out = nullptr;
    ret = CreateAclTensor(selfHostData, selfShape, &selfDeviceAddr, aclDataType::ACL_FLOAT, &self);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(indexHostData, indexShape, &indexDeviceAddr, aclDataType::ACL_INT64, &index);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(sourceHostData, sourceShape, &sourceDeviceAddr, aclDataType::ACL_FLOAT, &source);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(std::vector<float>(6, 0), selfShape, &outDeviceAddr, aclDataType::ACL_FLOAT, &out);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    uint64_t workspaceSize = 0;
    aclOpExecutor* executor;
    ret = aclnnIndexCopyGetWorkspaceSize(self, 0, index, source, out, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnIndexCopyGetWorkspaceSize failed. ERROR: %d\n", ret); return ret);
    aclError sync = 0;
    ret = Launch(workspaceSize, executor, false, stream, &sync);
    CHECK_RET(ret == 0 && sync == ACL_SUCCESS, LOG_PRINT("index copy failed: %d %d\n", ret, sync); return 1);
    std::vector<float> resultData(6, 0);
    ret = ReadBack(outDeviceAddr, resultData);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    const float want[6] = {12, 13, 2, 3, 10, 11};
    for (int64_t i = 0; i < 6; i++) {
        LOG_PRINT("result[%ld] is: %f\n", i, resultData[i]);
        CHECK_RET(resultData[i] == want[i], LOG_PRINT("should be %f\n", want[i]); return 1);
    }

    // 2. aclnnInplaceIndexCopy: self's column 1 replaced by {7, 8, 9} (int32 index).
    void* i32Addr = nullptr;
    aclTensor* i32 = nullptr;
    ret = CreateAclTensor(std::vector<int32_t>{1}, std::vector<int64_t>{1}, &i32Addr, aclDataType::ACL_INT32, &i32);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    void* colAddr = nullptr;
    aclTensor* col = nullptr;
    ret = CreateAclTensor(std::vector<float>{7, 8, 9}, std::vector<int64_t>{3, 1}, &colAddr, aclDataType::ACL_FLOAT,
                          &col);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = aclnnInplaceIndexCopyGetWorkspaceSize(self, 1, i32, col, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS,
              LOG_PRINT("aclnnInplaceIndexCopyGetWorkspaceSize failed. ERROR: %d\n", ret); return ret);
    ret = Launch(workspaceSize, executor, true, stream, &sync);
    CHECK_RET(ret == 0 && sync == ACL_SUCCESS, LOG_PRINT("in place failed: %d %d\n", ret, sync); return 1);
    ret = ReadBack(selfDeviceAddr, resultData);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    const float wantIn[6] = {0, 7, 2, 8, 4, 9};
    for (int64_t i = 0; i < 6; i++) {
        CHECK_RET(resultData[i] == wantIn[i], LOG_PRINT("in place [%ld] is %f, should be %f\n", i, resultData[i],
                                                        wantIn[i]);
                  return 1);
    }

    // 3. An index past the end: the scatter faults; synchronisation says so.
    void* badAddr = nullptr;
    aclTensor* bad = nullptr;
    ret = CreateAclTensor(std::vector<int64_t>{3, 0}, indexShape, &badAddr, aclDataType::ACL_INT64, &bad);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = aclnnIndexCopyGetWorkspaceSize(self, 0, bad, source, out, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("first phase with a bad value: %d\n", ret); return 1);
    ret = Launch(workspaceSize, executor, false, stream, &sync);
    CHECK_RET(ret == 0 && sync != ACL_SUCCESS, LOG_PRINT("index 3 of 3 rows: %d %d\n", ret, sync); return 1);

    // 4. The first phase's rules and codes.
    aclOpExecutor* unused = nullptr;
    ret = aclnnIndexCopyGetWorkspaceSize(self, 0, index, col, out, &workspaceSize, &unused);
    CHECK_RET(ret == 161002 && unused == nullptr, LOG_PRINT("source [3, 1] for 2 rows: %d\n", ret); return 1);
    ret = aclnnIndexCopyGetWorkspaceSize(self, 2, index, source, out, &workspaceSize, &unused);
    CHECK_RET(ret == 161002, LOG_PRINT("dim 2 of rank 2: %d\n", ret); return 1);
    ret = aclnnInplaceIndexCopyGetWorkspaceSize(self, 0, source, source, &workspaceSize, &unused);
    CHECK_RET(ret == 161002, LOG_PRINT("float index: %d\n", ret); return 1);
    ret = aclnnIndexCopyGetWorkspaceSize(self, 0, index, source, nullptr, &workspaceSize, &unused);
    CHECK_RET(ret == 161001, LOG_PRINT("null outRef: %d\n", ret); return 1);

    aclDestroyTensor(self);
    aclDestroyTensor(index);
    aclDestroyTensor(source);
    aclDestroyTensor(out);
    aclDestroyTensor(i32);
    aclDestroyTensor(col);
    aclDestroyTensor(bad);
    aclrtFree(selfDeviceAddr);
    aclrtFree(indexDeviceAddr);
    aclrtFree(sourceDeviceAddr);
    aclrtFree(outDeviceAddr);
    aclrtFree(i32Addr);
    aclrtFree(colAddr);
    aclrtFree(badAddr);
    aclrtDestroyStream(stream);
    aclrtResetDevice(deviceId);
    aclFinalize();
    LOG_PRINT("index_copy: ok\n");
    return 0;
}
