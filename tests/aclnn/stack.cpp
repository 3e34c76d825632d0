// aclnnStack in the style of CANN's sample: three per-step key vectors of
// 4 floats gathered into one [3, 4] block along a new leading dim, the
// second member a strided view (every other element of an 8-float
// buffer), and the stacked output written through a transposed view.
#include <iostream>
#include <vector>
#include "acl/acl.h"
#include "aclnnop/aclnn_stack.h"
#include "common.h"

int main()
{
    int32_t deviceId = 0;
    aclrtStream stream;
    auto ret = Init(deviceId, &stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

    std::vector<int64_t> keyShape = {4}, wideShape = {8}, outStorage = {4, 3};
    void *k0Addr = nullptr, *k1Addr = nullptr, *k2Addr = nullptr, *outAddr = nullptr;
    aclTensor *k0 = nullptr, *k1Wide = nullptr, *k2 = nullptr, *out = nullptr;
    std::vector<float> k0Host = {0, 1, 2, 3};
    std::vector<float> k1Host = {10, -1, 11, -1, 12, -1, 13, -1};
    std::vector<float> k2Host = {20, 21, 22, 23};
    std::vector<float> outHost(12, 0);
    ret = CreateAclTensor(k0Host, keyShape, &k0Addr, aclDataType::ACL_FLOAT, &k0);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(k1Host, wideShape, &k1Addr, aclDataType::ACL_FLOAT, &k1Wide);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(k2Host, keyShape, &k2Addr, aclDataType::ACL_FLOAT, &k2);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(outHost, outStorage, &outAddr, aclDataType::ACL_FLOAT, &out);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    aclDestroyTensor(k1Wide);
    // Every other element of k1's buffer: shape {4}, stride 2.
    std::vector<int64_t> k1Strides = {2}, k1Storage = {8};
    aclTensor* k1 = aclCreateTensor(keyShape.data(), 1, aclDataType::ACL_FLOAT, k1Strides.data(), 0,
                                    aclFormat::ACL_FORMAT_ND, k1Storage.data(), 1, k1Addr);
    // out as a [3, 4] view of its [4, 3] storage (transposed).
    aclDestroyTensor(out);
    std::vector<int64_t> outShape = {3, 4}, outStrides = {1, 3};
    out = aclCreateTensor(outShape.data(), 2, aclDataType::ACL_FLOAT, outStrides.data(), 0,
                          aclFormat::ACL_FORMAT_ND, outStorage.data(), 2, outAddr);
    CHECK_RET(k1 != nullptr && out != nullptr, LOG_PRINT("aclCreateTensor failed\n"); return 1);

    std::vector<aclTensor*> members{k0, k1, k2};
    aclTensorList* tensors = aclCreateTensorList(members.data(), members.size());
    CHECK_RET(tensors != nullptr, LOG_PRINT("aclCreateTensorList failed\n"); return 1);

    uint64_t workspaceSize = 0;
    aclOpExecutor* executor;
    ret = aclnnStackGetWorkspaceSize(tensors, 0, out, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnStackGetWorkspaceSize failed. ERROR: %d\n", ret); return ret);
    void* workspaceAddr = nullptr;
    if (workspaceSize > 0) {
        ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
    }
    ret = aclnnStack(workspaceAddr, workspaceSize, executor, stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnStack failed. ERROR: %d\n", ret); return ret);
    ret = aclrtSynchronizeStream(stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret); return ret);

    // The storage is [4, 3]: element (i, j) of the stacked [3, 4] is at j * 3 + i.
    std::vector<float> resultData(12, 0);
    ret = ReadBack(outAddr, resultData);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("copy result failed. ERROR: %d\n", ret); return ret);
    const float want[] = {0, 10, 20, 1, 11, 21, 2, 12, 22, 3, 13, 23};
    for (size_t i = 0; i < resultData.size(); i++) {
        LOG_PRINT("storage[%zu] is: %f\n", i, resultData[i]);
        CHECK_RET(resultData[i] == want[i], LOG_PRINT("storage[%zu] should be %f\n", i, want[i]); return 1);
    }

    // A null list is an inner null pointer for Stack (561103), as CANN's page says.
    aclOpExecutor* refused = nullptr;
    ret = aclnnStackGetWorkspaceSize(nullptr, 0, out, &workspaceSize, &refused);
    CHECK_RET(ret == 561103 && refused == nullptr,
              LOG_PRINT("a null list should fail with 561103, got %d\n", ret); return 1);

    aclDestroyTensorList(tensors);
    aclDestroyTensor(out);
    aclrtFree(k0Addr);
    aclrtFree(k1Addr);
    aclrtFree(k2Addr);
    aclrtFree(outAddr);
    if (workspaceAddr != nullptr) {
        aclrtFree(workspaceAddr);
    }
    aclrtDestroyStream(stream);
    aclrtResetDevice(deviceId);
    aclFinalize();
    LOG_PRINT("stack: ok\n");
    return 0;
}
