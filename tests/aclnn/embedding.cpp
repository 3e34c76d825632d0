// aclnnEmbedding in the style of CANN's sample: a [10, 3] float weight and
// int64 indices {1, 2, 3, 4} (CANN's sample), then int32 indices of rank 2
// into a transposed out, an index past the end (a fault at
// synchronisation) and the first phase's rules (docs/ops.md §23).
#include <iostream>
#include <vector>
#include "acl/acl.h"
#include "aclnnop/aclnn_embedding.h"
#include "common.h"

static int RunEmbedding(const aclTensor* weight, const aclTensor* indices, const aclTensor* out, aclrtStream stream,
                        aclError* sync)
{
    uint64_t workspaceSize = 0;
    aclOpExecutor* executor;
    auto ret = aclnnEmbeddingGetWorkspaceSize(weight, indices, out, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnEmbeddingGetWorkspaceSize failed. ERROR: %d\n", ret); return ret);
    void* workspaceAddr = nullptr;
    if (workspaceSize > 0) {
        ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
    }
    ret = aclnnEmbedding(workspaceAddr, workspaceSize, executor, stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnEmbedding failed. ERROR: %d\n", ret); return ret);
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

    // 1. CANN's sample.
    std::vector<int64_t> weightShape = {10, 3}, indicesShape = {4}, outShape = {4, 3};
    std::vector<float> weightHostData(30);
    for (int k = 0; k < 30; k++) {
        weightHostData[k] = (float)(k + 1);
    }
    std::vector<int64_t> indicesHostData = {1, 2, 3, 4};
    std::vector<float> outHostData(12, 0);
    void *weightDeviceAddr = nullptr, *indicesDeviceAddr = nullptr, *outDeviceAddr = nullptr;
    aclTensor *weight = nullptr, *indices = nullptr, *out = nullptr;
    ret = CreateAclTensor(weightHostData, weightShape, &weightDeviceAddr, aclDataType::ACL_FLOAT, &weight);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(indicesHostData, indicesShape, &indicesDeviceAddr, aclDataType::ACL_INT64, &indices);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(outHostData, outShape, &outDeviceAddr, aclDataType::ACL_FLOAT, &out);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    aclError sync = 0;
    ret = RunEmbedding(weight, indices, out, stream, &sync);
    CHECK_RET(ret == 0 && sync == ACL_SUCCESS, LOG_PRINT("sample failed: %d %d\n", ret, sync); return 1);
    std::vector<float> resultData(12, 0);
    ret = ReadBack(outDeviceAddr, resultData);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    for (int64_t i = 0; i < 12; i++) {
        LOG_PRINT("resultData[%ld] is: %f\n", i, resultData[i]);
        CHECK_RET(resultData[i] == (float)(i + 4), LOG_PRINT("should be %f\n", (float)(i + 4)); return 1);
    }

    // 2. int32 indices [[9, 0]] into a transposed [1, 2, 3] out.
    std::vector<int32_t> i32Host = {9, 0};
    std::vector<int64_t> i32Shape = {1, 2};
    void* i32Addr = nullptr;
    aclTensor* i32 = nullptr;
    ret = CreateAclTensor(i32Host, i32Shape, &i32Addr, aclDataType::ACL_INT32, &i32);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    std::vector<float> tHost(6, 0);
    void* tAddr = nullptr;
    aclTensor* tDense = nullptr;
    ret = CreateAclTensor(tHost, std::vector<int64_t>{6}, &tAddr, aclDataType::ACL_FLOAT, &tDense);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    std::vector<int64_t> oShape = {1, 2, 3}, oStrides = {6, 1, 2}, oStorage = {6};
    aclTensor* outT = aclCreateTensor(oShape.data(), oShape.size(), aclDataType::ACL_FLOAT, oStrides.data(), 0,
                                      aclFormat::ACL_FORMAT_ND, oStorage.data(), oStorage.size(), tAddr);
    ret = RunEmbedding(weight, i32, outT, stream, &sync);
    CHECK_RET(ret == 0 && sync == ACL_SUCCESS, LOG_PRINT("rank-2 indices failed: %d %d\n", ret, sync); return 1);
    // out[0][r][c] lies at r + 2c: row 9 is {28, 29, 30}, row 0 {1, 2, 3}.
    std::vector<float> tGot(6, 0);
    ret = ReadBack(tAddr, tGot);
    const float tWant[6] = {28, 1, 29, 2, 30, 3};
    for (int k = 0; k < 6; k++) {
        CHECK_RET(tGot[k] == tWant[k], LOG_PRINT("transposed[%d] is %f, should be %f\n", k, tGot[k], tWant[k]);
                  return 1);
    }

    // 3. An index past the end: the gather faults; synchronisation says so.
    std::vector<int64_t> badHost = {10};
    void* badAddr = nullptr;
    aclTensor* bad = nullptr;
    ret = CreateAclTensor(badHost, std::vector<int64_t>{1}, &badAddr, aclDataType::ACL_INT64, &bad);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    void* oneAddr = nullptr;
    aclTensor* one = nullptr;
    ret = CreateAclTensor(std::vector<float>(3, 0), std::vector<int64_t>{1, 3}, &oneAddr, aclDataType::ACL_FLOAT, &one);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = RunEmbedding(weight, bad, one, stream, &sync);
    CHECK_RET(ret == 0 && sync != ACL_SUCCESS, LOG_PRINT("index 10 of 10 rows: %d %d\n", ret, sync); return 1);

    // 4. The first phase's rules.
    uint64_t workspaceSize = 0;
    aclOpExecutor* unused = nullptr;
    ret = aclnnEmbeddingGetWorkspaceSize(weight, indices, one, &workspaceSize, &unused);
    CHECK_RET(ret == 161002 && unused == nullptr, LOG_PRINT("out [1, 3] for 4 indices: %d\n", ret); return 1);
    ret = aclnnEmbeddingGetWorkspaceSize(weight, weight, out, &workspaceSize, &unused);
    CHECK_RET(ret == 161002, LOG_PRINT("float indices: %d\n", ret); return 1);
    ret = aclnnEmbeddingGetWorkspaceSize(nullptr, indices, out, &workspaceSize, &unused);
    CHECK_RET(ret == 161001, LOG_PRINT("null weight: %d\n", ret); return 1);

    aclDestroyTensor(weight);
    aclDestroyTensor(indices);
    aclDestroyTensor(out);
    aclDestroyTensor(i32);
    aclDestroyTensor(tDense);
    aclDestroyTensor(outT);
    aclDestroyTensor(bad);
    aclDestroyTensor(one);
    aclrtFree(weightDeviceAddr);
    aclrtFree(indicesDeviceAddr);
    aclrtFree(outDeviceAddr);
    aclrtFree(i32Addr);
    aclrtFree(tAddr);
    aclrtFree(badAddr);
    aclrtFree(oneAddr);
    aclrtDestroyStream(stream);
    aclrtResetDevice(deviceId);
    aclFinalize();
    LOG_PRINT("embedding: ok\n");
    return 0;
}
