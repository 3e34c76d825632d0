// aclnnInplaceFillScalar and aclnnInplaceZero in the style of CANN's
// samples: a float32 2x2 tensor filled with 1.0 (CANN's FillScalar
// sample), an int8 tensor filled with 300 (wraps to 44, docs/ops.md §13),
// every other column of a 3x4 int32 tensor zeroed through a strided view
// (the gaps keep their values), and the first phase's rules: a float value
// into an int32 tensor, a uint16 tensor (Zero's list, not FillScalar's).
#include <iostream>
#include <vector>
#include "acl/acl.h"
#include "aclnnop/aclnn_fill_scalar.h"
#include "aclnnop/aclnn_zero.h"
#include "common.h"

static int RunPhase2(uint64_t workspaceSize, aclOpExecutor* executor, aclrtStream stream, bool zero)
{
    void* workspaceAddr = nullptr;
    if (workspaceSize > 0) {
        auto ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
    }
    auto ret = zero ? aclnnInplaceZero(workspaceAddr, workspaceSize, executor, stream)
                    : aclnnInplaceFillScalar(workspaceAddr, workspaceSize, executor, stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("second phase failed. ERROR: %d\n", ret); return ret);
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

    // 1. CANN's FillScalar sample: a float32 2x2 of zeros filled with 1.0.
    std::vector<int64_t> selfShape = {2, 2};
    void* selfDeviceAddr = nullptr;
    aclTensor* selfRef = nullptr;
    std::vector<float> selfHostData = {0.0, 0.0, 0.0, 0.0};
    ret = CreateAclTensor(selfHostData, selfShape, &selfDeviceAddr, aclDataType::ACL_FLOAT, &selfRef);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    float pValue = 1.0f;
    aclScalar* pScalar = aclCreateScalar(&pValue, aclDataType::ACL_FLOAT);
    CHECK_RET(pScalar != nullptr, return 1);
    uint64_t workspaceSize = 0;
    aclOpExecutor* executor;
    ret = aclnnInplaceFillScalarGetWorkspaceSize(selfRef, pScalar, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnInplaceFillScalarGetWorkspaceSize failed. ERROR: %d\n", ret);
              return ret);
    ret = RunPhase2(workspaceSize, executor, stream, false);
    CHECK_RET(ret == 0, return ret);
    std::vector<float> resultData(4, 0);
    ret = ReadBack(selfDeviceAddr, resultData);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("copy result failed. ERROR: %d\n", ret); return ret);
    for (size_t i = 0; i < resultData.size(); i++) {
        LOG_PRINT("result[%zu] is: %f\n", i, resultData[i]);
        CHECK_RET(resultData[i] == 1.0f, LOG_PRINT("result[%zu] should be 1\n", i); return 1);
    }

    // 2. An int64 scalar 300 into int8: wraps to 44.
    std::vector<int64_t> byteShape = {3};
    std::vector<int8_t> byteHost = {1, 2, 3};
    void* byteDeviceAddr = nullptr;
    aclTensor* bytes = nullptr;
    ret = CreateAclTensor(byteHost, byteShape, &byteDeviceAddr, aclDataType::ACL_INT8, &bytes);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    int64_t big = 300;
    aclScalar* bigScalar = aclCreateScalar(&big, aclDataType::ACL_INT64);
    ret = aclnnInplaceFillScalarGetWorkspaceSize(bytes, bigScalar, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("int8 fill: %d\n", ret); return ret);
    ret = RunPhase2(workspaceSize, executor, stream, false);
    CHECK_RET(ret == 0, return ret);
    std::vector<int8_t> byteResult(3, 0);
    ret = ReadBack(byteDeviceAddr, byteResult);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    for (size_t i = 0; i < byteResult.size(); i++) {
        CHECK_RET(byteResult[i] == 44, LOG_PRINT("int8[%zu] is %d, should be 44\n", i, byteResult[i]); return 1);
    }

    // 3. aclnnInplaceZero on every other column of a 3x4 int32 tensor: a
    // view of shape 3x2, strides (4, 2), offset 1 over the whole storage.
    std::vector<int64_t> gridShape = {3, 4};
    std::vector<int32_t> gridHost = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    void* gridDeviceAddr = nullptr;
    aclTensor* grid = nullptr;
    ret = CreateAclTensor(gridHost, gridShape, &gridDeviceAddr, aclDataType::ACL_INT32, &grid);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    std::vector<int64_t> colsShape = {3, 2}, colsStrides = {4, 2}, storageShape = {12};
    aclTensor* cols = aclCreateTensor(colsShape.data(), colsShape.size(), aclDataType::ACL_INT32,
                                      colsStrides.data(), 1, aclFormat::ACL_FORMAT_ND, storageShape.data(),
                                      storageShape.size(), gridDeviceAddr);
    CHECK_RET(cols != nullptr, return 1);
    ret = aclnnInplaceZeroGetWorkspaceSize(cols, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnInplaceZeroGetWorkspaceSize failed. ERROR: %d\n", ret);
              return ret);
    ret = RunPhase2(workspaceSize, executor, stream, true);
    CHECK_RET(ret == 0, return ret);
    std::vector<int32_t> gridResult(12, 0);
    ret = ReadBack(gridDeviceAddr, gridResult);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    for (size_t i = 0; i < gridResult.size(); i++) {
        int32_t want = (i % 2 == 1) ? 0 : gridHost[i];
        CHECK_RET(gridResult[i] == want, LOG_PRINT("grid[%zu] is %d, should be %d\n", i, gridResult[i], want);
                  return 1);
    }

    // 4. The first phase's rules (161002), with no executor written: a
    // DOUBLE value into int32, a uint16 selfRef for FillScalar (Zero takes it).
    aclOpExecutor* unused = nullptr;
    double half = 0.5;
    aclScalar* halfScalar = aclCreateScalar(&half, aclDataType::ACL_DOUBLE);
    ret = aclnnInplaceFillScalarGetWorkspaceSize(grid, halfScalar, &workspaceSize, &unused);
    CHECK_RET(ret == 161002 && unused == nullptr, LOG_PRINT("0.5 into int32: %d\n", ret); return 1);
    std::vector<uint16_t> shortHost = {7, 8};
    std::vector<int64_t> shortShape = {2};
    void* shortDeviceAddr = nullptr;
    aclTensor* shorts = nullptr;
    ret = CreateAclTensor(shortHost, shortShape, &shortDeviceAddr, aclDataType::ACL_UINT16, &shorts);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = aclnnInplaceFillScalarGetWorkspaceSize(shorts, bigScalar, &workspaceSize, &unused);
    CHECK_RET(ret == 161002 && unused == nullptr, LOG_PRINT("uint16 fill: %d\n", ret); return 1);
    ret = aclnnInplaceZeroGetWorkspaceSize(shorts, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("uint16 zero: %d\n", ret); return ret);
    ret = RunPhase2(workspaceSize, executor, stream, true);
    CHECK_RET(ret == 0, return ret);

    aclDestroyScalar(pScalar);
    aclDestroyScalar(bigScalar);
    aclDestroyScalar(halfScalar);
    aclDestroyTensor(selfRef);
    aclDestroyTensor(bytes);
    aclDestroyTensor(grid);
    aclDestroyTensor(cols);
    aclDestroyTensor(shorts);
    aclrtFree(selfDeviceAddr);
    aclrtFree(byteDeviceAddr);
    aclrtFree(gridDeviceAddr);
    aclrtFree(shortDeviceAddr);
    aclrtDestroyStream(stream);
    aclrtResetDevice(deviceId);
    aclFinalize();
    LOG_PRINT("fill: ok\n");
    return 0;
}
