// aclnnReflectionPad2d in the style of CANN's sample: a float32 1x1x2x2
// tensor padded by one on every side (CANN's sample), CANN's documented
// 3x3 example with padding [2, 2, 2, 2] into a transposed out view, the
// replication and circular pads of the same input (docs/ops.md §16, §17),
// and the first phase's rules: a padding not below its extent, a null
// padding, a wrong out shape.
#include <iostream>
#include <vector>
#include "acl/acl.h"
#include "aclnnop/aclnn_reflection_pad2d.h"
#include "aclnnop/aclnn_replication_pad2d.h"
#include "aclnnop/aclnn_circular_pad2d.h"
#include "common.h"

typedef aclnnStatus (*FirstPhase)(const aclTensor*, const aclIntArray*, aclTensor*, uint64_t*, aclOpExecutor**);
typedef aclnnStatus (*SecondPhase)(void*, uint64_t, aclOpExecutor*, aclrtStream);

static int RunPad(FirstPhase first, SecondPhase second, const aclTensor* self, const aclIntArray* padding,
                  aclTensor* out, aclrtStream stream)
{
    uint64_t workspaceSize = 0;
    aclOpExecutor* executor;
    auto ret = first(self, padding, out, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("first phase failed. ERROR: %d\n", ret); return ret);
    void* workspaceAddr = nullptr;
    if (workspaceSize > 0) {
        ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
    }
    ret = second(workspaceAddr, workspaceSize, executor, stream);
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

    // 1. CANN's sample: 1x1x2x2 float32, padding {1, 1, 1, 1}, out 1x1x4x4.
    std::vector<int64_t> selfShape = {1, 1, 2, 2}, outShape = {1, 1, 4, 4};
    void *selfDeviceAddr = nullptr, *outDeviceAddr = nullptr;
    aclTensor *self = nullptr, *out = nullptr;
    std::vector<float> selfHostData = {1, 2, 3, 4};
    std::vector<int64_t> paddingData = {1, 1, 1, 1};
    std::vector<float> outHostData(16, 0);
    ret = CreateAclTensor(selfHostData, selfShape, &selfDeviceAddr, aclDataType::ACL_FLOAT, &self);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    aclIntArray* padding = aclCreateIntArray(paddingData.data(), 4);
    CHECK_RET(padding != nullptr, return 1);
    ret = CreateAclTensor(outHostData, outShape, &outDeviceAddr, aclDataType::ACL_FLOAT, &out);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = RunPad(aclnnReflectionPad2dGetWorkspaceSize, aclnnReflectionPad2d, self, padding, out, stream);
    CHECK_RET(ret == 0, return ret);
    std::vector<float> resultData(16, 0);
    ret = ReadBack(outDeviceAddr, resultData);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("copy result failed. ERROR: %d\n", ret); return ret);
    const float reflect[16] = {4, 3, 4, 3, 2, 1, 2, 1, 4, 3, 4, 3, 2, 1, 2, 1};
    for (size_t i = 0; i < 16; i++) {
        LOG_PRINT("result[%zu] is: %f\n", i, resultData[i]);
        CHECK_RET(resultData[i] == reflect[i], LOG_PRINT("result[%zu] should be %f\n", i, reflect[i]); return 1);
    }
    // The same input replicated and wrapped around.
    const float replicate[16] = {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4};
    const float circular[16] = {4, 3, 4, 3, 2, 1, 2, 1, 4, 3, 4, 3, 2, 1, 2, 1};
    ret = RunPad(aclnnReplicationPad2dGetWorkspaceSize, aclnnReplicationPad2d, self, padding, out, stream);
    CHECK_RET(ret == 0, return ret);
    ret = ReadBack(outDeviceAddr, resultData);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    for (size_t i = 0; i < 16; i++) {
        CHECK_RET(resultData[i] == replicate[i], LOG_PRINT("replication[%zu] is %f\n", i, resultData[i]); return 1);
    }
    ret = RunPad(aclnnCircularPad2dGetWorkspaceSize, aclnnCircularPad2d, self, padding, out, stream);
    CHECK_RET(ret == 0, return ret);
    ret = ReadBack(outDeviceAddr, resultData);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    for (size_t i = 0; i < 16; i++) {
        CHECK_RET(resultData[i] == circular[i], LOG_PRINT("circular[%zu] is %f\n", i, resultData[i]); return 1);
    }

    // 2. CANN's documented example: 3x3 int32 0..8, padding {2, 2, 2, 2},
    //    into a 7x7 out seen transposed (out(i, j) stored at j * 7 + i).
    std::vector<int64_t> xShape = {1, 3, 3};
    std::vector<int32_t> xHost = {0, 1, 2, 3, 4, 5, 6, 7, 8};
    void *xDeviceAddr = nullptr, *yDeviceAddr = nullptr;
    aclTensor* x = nullptr;
    ret = CreateAclTensor(xHost, xShape, &xDeviceAddr, aclDataType::ACL_INT32, &x);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    std::vector<int32_t> yHost(49, -1);
    std::vector<int64_t> yFlat = {49};
    aclTensor* yFlatT = nullptr;
    ret = CreateAclTensor(yHost, yFlat, &yDeviceAddr, aclDataType::ACL_INT32, &yFlatT);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    std::vector<int64_t> yShape = {1, 7, 7}, yStrides = {49, 1, 7}, storage = {49};
    aclTensor* y = aclCreateTensor(yShape.data(), yShape.size(), aclDataType::ACL_INT32, yStrides.data(), 0,
                                   aclFormat::ACL_FORMAT_ND, storage.data(), storage.size(), yDeviceAddr);
    std::vector<int64_t> pad2 = {2, 2, 2, 2};
    aclIntArray* padding2 = aclCreateIntArray(pad2.data(), 4);
    ret = RunPad(aclnnReflectionPad2dGetWorkspaceSize, aclnnReflectionPad2d, x, padding2, y, stream);
    CHECK_RET(ret == 0, return ret);
    std::vector<int32_t> yResult(49, 0);
    ret = ReadBack(yDeviceAddr, yResult);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    const int32_t rows[7][7] = {{8, 7, 6, 7, 8, 7, 6}, {5, 4, 3, 4, 5, 4, 3}, {2, 1, 0, 1, 2, 1, 0},
                                {5, 4, 3, 4, 5, 4, 3}, {8, 7, 6, 7, 8, 7, 6}, {5, 4, 3, 4, 5, 4, 3},
                                {2, 1, 0, 1, 2, 1, 0}};
    for (int i = 0; i < 7; i++) {
        for (int j = 0; j < 7; j++) {
            CHECK_RET(yResult[j * 7 + i] == rows[i][j],
                      LOG_PRINT("out(%d, %d) is %d, should be %d\n", i, j, yResult[j * 7 + i], rows[i][j]); return 1);
        }
    }

    // 3. The first phase's rules (no executor written).
    uint64_t workspaceSize = 0;
    aclOpExecutor* unused = nullptr;
    std::vector<int64_t> tooBig = {0, 0, 3, 0};
    aclIntArray* bad = aclCreateIntArray(tooBig.data(), 4);
    ret = aclnnReflectionPad2dGetWorkspaceSize(x, bad, y, &workspaceSize, &unused);
    CHECK_RET(ret == 161002 && unused == nullptr, LOG_PRINT("padding 3 over extent 3: %d\n", ret); return 1);
    ret = aclnnReflectionPad2dGetWorkspaceSize(x, nullptr, y, &workspaceSize, &unused);
    CHECK_RET(ret == 161001 && unused == nullptr, LOG_PRINT("null padding: %d\n", ret); return 1);
    ret = aclnnReplicationPad2dGetWorkspaceSize(x, padding, y, &workspaceSize, &unused);
    CHECK_RET(ret == 161002 && unused == nullptr, LOG_PRINT("3x3 + 1 into 7x7: %d\n", ret); return 1);

    aclDestroyIntArray(padding);
    aclDestroyIntArray(padding2);
    aclDestroyIntArray(bad);
    aclDestroyTensor(self);
    aclDestroyTensor(out);
    aclDestroyTensor(x);
    aclDestroyTensor(y);
    aclDestroyTensor(yFlatT);
    aclrtFree(selfDeviceAddr);
    aclrtFree(outDeviceAddr);
    aclrtFree(xDeviceAddr);
    aclrtFree(yDeviceAddr);
    aclrtDestroyStream(stream);
    aclrtResetDevice(deviceId);
    aclFinalize();
    LOG_PRINT("reflection_pad2d: ok\n");
    return 0;
}
