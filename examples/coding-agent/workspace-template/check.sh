. ./greet.sh
greet World
