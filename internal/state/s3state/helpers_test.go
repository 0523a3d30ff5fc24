package s3state

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/johannesboyne/gofakes3"
)

func gofakes3ListAll() gofakes3.ListBucketPage { return gofakes3.ListBucketPage{} }

func ddbPut(table, lockID, info string) *dynamodb.PutItemInput {
	return &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]ddbtypes.AttributeValue{
		"LockID": &ddbtypes.AttributeValueMemberS{Value: lockID},
		"Info":   &ddbtypes.AttributeValueMemberS{Value: info},
	}}
}
